/** The seed file format (docs/seeding.md), validated before anything is written. */
import { z } from "zod";
import { WEBHOOK_EVENT_TYPES } from "../webhooks/event_types.ts";
import { PROVIDER_CODES } from "../ai/providers.ts";
import { ROLES } from "../auth/permissions.ts";
import { isAcceptedPasswordHash } from "../auth/passwords.ts";

const knowledge = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), title: z.string().min(1).max(200), content: z.string() }),
  z.object({
    type: z.literal("qa"),
    title: z.string().max(200).optional(),
    question: z.string().min(1).max(2000),
    answer: z.string().min(1).max(50_000),
  }),
]);

const token = z.object({
  name: z.string().min(1).max(120),
  token: z.string().optional(),
  ability: z.enum(["api", "portal", "agent", "dashboard"]).default("api"),
  expires_at: z.string().optional(),
});

const user = z.object({
  name: z.string().min(1),
  email: z.string().email(),
  password: z.string().min(1).optional(),
  /** A bcrypt hash instead of the password (users moved from another app keep theirs). */
  password_hash: z.string().refine(
    isAcceptedPasswordHash,
    "A bcrypt hash ($2a$, $2b$ or $2y$) of cost 10 or more.",
  ).optional(),
  role: z.enum(ROLES as [string, ...string[]]).default("agent"),
  suspended: z.boolean().default(false),
  tokens: z.array(token).default([]),
}).superRefine((u, ctx) => {
  if ((u.password === undefined) === (u.password_hash === undefined)) {
    ctx.addIssue({
      code: "custom",
      path: ["password"],
      message: "Give password or password_hash, one of the two.",
    });
  }
});

const chatbot = z.object({
  name: z.string().min(1).max(120),
  public_key: z.string().min(4).max(64).regex(/^[A-Za-z0-9_-]+$/),
  role: z.string().default("support"),
  provider: z.enum(PROVIDER_CODES).default("provider_1"),
  model: z.string().default("gpt-4o-mini"),
  is_active: z.boolean().default(true),
  persona: z.string().max(2000).default(""),
  instructions: z.string().max(4000).default(""),
  welcome_message: z.string().max(300).nullable().optional(),
  branding: z.record(z.string(), z.unknown()).default({}),
  language: z.string().default("english"),
  knowledge: z.array(knowledge).default([]),
});

const workspace = z.object({
  name: z.string().min(1),
  slug: z.string().min(1).max(100).regex(/^[a-z0-9-]+$/),
  plan: z.string().default("free"),
  portal_enabled: z.boolean().default(false),
  suspended: z.boolean().default(false),
  identity_secret: z.string().nullable().optional(),
  users: z.array(user).default([]),
  provider_keys: z.array(
    z.object({ provider: z.enum(PROVIDER_CODES), api_key: z.string().min(1).max(300) }),
  )
    .default([]),
  chatbots: z.array(chatbot).default([]),
  /** Customer context (docs/seeding.md): a Shopify store and a Stripe account. */
  integrations: z.object({
    storefront: z.object({
      shop: z.string().min(1).max(255),
      access_token: z.string().min(1).max(300),
    }).optional(),
    billing: z.object({ secret_key: z.string().min(1).max(300) }).optional(),
  }).default({}),
  /** Outbound webhook endpoints (docs/webhooks.md), keyed by url. */
  webhooks: z.array(z.object({
    url: z.url({ protocol: /^https?$/ }),
    description: z.string().max(500).default(""),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1),
    enabled: z.boolean().default(true),
    secret: z.string().regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, "A secret is whsec_ and base64."),
  })).default([]),
  tags: z.array(z.object({ name: z.string().min(1), color: z.string().default("#6b7280") }))
    .default(
      [],
    ),
  canned: z.array(z.object({
    title: z.string().min(1),
    shortcut: z.string().nullable().optional(),
    body: z.string().min(1),
    owner_email: z.string().nullable().optional(),
  })).default([]),
});

export const seedSchema = z.object({
  plans: z.array(z.object({
    code: z.string().min(1),
    name: z.string().min(1),
    monthly_message_limit: z.number().int().nonnegative().nullable(),
    chatbot_limit: z.number().int().nonnegative(),
    agent_seats: z.number().int().nonnegative(),
  })).default([]),
  workspaces: z.array(workspace).default([]),
});

export type Seed = z.infer<typeof seedSchema>;
export type SeedWorkspace = z.infer<typeof workspace>;
