/**
 * The standard seed shared by the suites: two workspaces (acme, globex), one
 * user per role with a token of each ability under fixed plain texts, bots,
 * knowledge, tags and canned replies. Tests hold the tokens in `T`.
 */

export const PASSWORD = "correct horse battery staple";
/**
 * PASSWORD's bcrypt hash (cost 10), given to the seed as `password_hash`: a
 * server starting on the standard seed then hashes nothing, where hashing
 * seven passwords took 0.5 s of CPU per start, about 200 starts per pass.
 */
export const PASSWORD_HASH = "$2b$10$g837YjdmvYHdQNwKAZzUT.SqCm9xUH47O1JjuzzWl4/OwmWIhcZ9K";

/** Token plain texts: `T.acme.owner.api` etc. */
export const T = {
  acme: {
    owner: {
      api: "acme-owner-api-token-0001",
      portal: "acme-owner-portal-token-01",
      agent: "acme-owner-agent-token-001",
    },
    administrator: {
      api: "acme-admin-api-token-0001",
      portal: "acme-admin-portal-token-01",
      agent: "acme-admin-agent-token-001",
    },
    agent: {
      api: "acme-agent-api-token-0001",
      portal: "acme-agent-portal-token-01",
      agent: "acme-agent-agent-token-001",
    },
    viewer: {
      api: "acme-viewer-api-token-001",
      portal: "acme-viewer-portal-token1",
      agent: "acme-viewer-agent-token01",
    },
    expired: "acme-expired-api-token-01",
    suspendedUser: "acme-suspended-user-tok1",
  },
  globex: {
    owner: {
      api: "globex-owner-api-token-01",
      portal: "globex-owner-portal-tok01",
      agent: "globex-owner-agent-tok001",
    },
  },
  suspendedWorkspace: { owner: { api: "umbrella-owner-api-tok-01" } },
} as const;

export const EMAIL = {
  acmeOwner: "owner@acme.test",
  acmeAdmin: "admin@acme.test",
  acmeAgent: "agent@acme.test",
  acmeViewer: "viewer@acme.test",
  acmeSuspended: "suspended@acme.test",
  globexOwner: "owner@globex.test",
  umbrellaOwner: "owner@umbrella.test",
};

function tokens(set: { api: string; portal: string; agent: string }) {
  return [
    { name: "api", token: set.api, ability: "api" },
    { name: "portal", token: set.portal, ability: "portal" },
    { name: "agent", token: set.agent, ability: "agent" },
  ];
}

export function standardSeed(overrides: { monthlyLimit?: number | null } = {}) {
  return {
    plans: [
      {
        code: "test",
        name: "Test",
        // null is unlimited (as in the plans table); absent is the test plan's 1,000.
        monthly_message_limit: overrides.monthlyLimit === undefined ? 1000 : overrides.monthlyLimit,
        chatbot_limit: 5,
        agent_seats: 5,
      },
      {
        code: "unlimited",
        name: "Unlimited",
        monthly_message_limit: null,
        chatbot_limit: 50,
        agent_seats: 50,
      },
    ],
    workspaces: [
      {
        name: "Acme Inc",
        slug: "acme",
        plan: "test",
        portal_enabled: true,
        identity_secret: "acme-identity-secret",
        users: [
          {
            name: "Ada Owner",
            email: EMAIL.acmeOwner,
            password_hash: PASSWORD_HASH,
            role: "owner",
            tokens: [...tokens(T.acme.owner), {
              name: "expired",
              token: T.acme.expired,
              ability: "api",
              expires_at: "2020-01-01T00:00:00Z",
            }],
          },
          {
            name: "Abe Admin",
            email: EMAIL.acmeAdmin,
            password_hash: PASSWORD_HASH,
            role: "administrator",
            tokens: tokens(T.acme.administrator),
          },
          {
            name: "Amy Agent",
            email: EMAIL.acmeAgent,
            password_hash: PASSWORD_HASH,
            role: "agent",
            tokens: tokens(T.acme.agent),
          },
          {
            name: "Vic Viewer",
            email: EMAIL.acmeViewer,
            password_hash: PASSWORD_HASH,
            role: "viewer",
            tokens: tokens(T.acme.viewer),
          },
          {
            name: "Sus Pended",
            email: EMAIL.acmeSuspended,
            password_hash: PASSWORD_HASH,
            role: "agent",
            suspended: true,
            tokens: [{ name: "api", token: T.acme.suspendedUser, ability: "api" }],
          },
        ],
        provider_keys: [{ provider: "provider_1", api_key: "sk-acme-test-key-1234" }],
        chatbots: [
          {
            name: "Acme Helper",
            public_key: "acme-helper",
            provider: "provider_1",
            model: "gpt-4o-mini",
            persona: "You are Acme's cheerful support assistant.",
            instructions: "Answer only from the knowledge provided.",
            welcome_message: "Hello from Acme!",
            branding: { primary_color: "#ff6600", theme: "ocean", title: "Acme Support" },
            knowledge: [
              {
                type: "text",
                title: "Shipping policy",
                content:
                  "# Shipping\nWe ship worldwide within 5 business days. Express shipping takes 2 days and costs 15 euros.\n\n# Returns\nReturns are accepted within 30 days of delivery with the original receipt.",
              },
              {
                type: "qa",
                title: "Opening hours",
                question: "When are you open?",
                answer: "Our support desk is open Monday to Friday, 9:00 to 17:00 CET.",
              },
            ],
          },
          { name: "Acme Sleeper", public_key: "acme-sleeper", is_active: false },
        ],
        tags: [{ name: "billing", color: "#f59e0b" }, { name: "urgent", color: "#ef4444" }],
        canned: [
          { title: "Hello", shortcut: "/hello", body: "Hello! How can I help?" },
          {
            title: "Amy's sign-off",
            shortcut: "/bye",
            body: "Bye from Amy",
            owner_email: EMAIL.acmeAgent,
          },
        ],
      },
      {
        name: "Globex",
        slug: "globex",
        plan: "unlimited",
        portal_enabled: false,
        users: [{
          name: "Gus Owner",
          email: EMAIL.globexOwner,
          password_hash: PASSWORD_HASH,
          role: "owner",
          tokens: tokens(T.globex.owner),
        }],
        chatbots: [{
          name: "Globex Bot",
          public_key: "globex-bot",
          knowledge: [{
            type: "text",
            title: "Globex secrets",
            content: "The Globex launch code is HAMMOCK-42.",
          }],
        }],
        tags: [{ name: "globex-tag", color: "#000000" }],
      },
      {
        name: "Umbrella",
        slug: "umbrella",
        plan: "test",
        suspended: true,
        portal_enabled: true,
        users: [{
          name: "Uma Owner",
          email: EMAIL.umbrellaOwner,
          password_hash: PASSWORD_HASH,
          role: "owner",
          tokens: [{ name: "api", token: T.suspendedWorkspace.owner.api, ability: "api" }],
        }],
      },
    ],
  };
}
