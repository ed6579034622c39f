/**
 * Customer context against fake Shopify and Stripe servers speaking the real
 * shapes, in its four states: not linked, linked and not found, linked and
 * found, linked and failing (connected, empty, a warning, never a 500). The
 * services are linked through the seed file, credentials encrypted at rest,
 * reached only through the address policy, and answers cached briefly.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { startFakeShopify } from "../helpers/fake_shopify.ts";
import { startFakeStripe } from "../helpers/fake_stripe.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { linkIntegration, unlinkIntegration } from "../../domain/admin/link_integration.ts";

const ai = startFakeAi();
const shopify = startFakeShopify();
const stripe = startFakeStripe();
const seed = standardSeed();
Object.assign(seed.workspaces[0]!, {
  integrations: {
    storefront: { shop: "acme-store.myshopify.com", access_token: shopify.accessToken },
    billing: { secret_key: stripe.secretKey },
  },
});
const s = await startTestServer({
  seed,
  env: {
    ...WIDGET_ENV,
    AI_BASE_URL: ai.baseUrl,
    SHOPIFY_BASE_URL: shopify.baseUrl,
    STRIPE_BASE_URL: stripe.baseUrl,
    // Only the two fakes are reachable: the integrations' own allowance. The
    // crawler's (CRAWL_ALLOW_PRIVATE=1 from the test server) does not apply.
    CONTEXT_ALLOW_HOSTS: `${shopify.hostPort},${stripe.hostPort}`,
    CONTEXT_TIMEOUT_MS: "400",
  },
});
const adminDeps = () => ({ sql: s.deps.sql, appKey: s.deps.appKey, now: new Date() });

shopify.orders.push(
  {
    email: "jane@example.com",
    legacyResourceId: "450789469",
    name: "#1001",
    createdAt: "2026-10-01T10:00:00Z",
    displayFinancialStatus: "PAID",
    displayFulfillmentStatus: "FULFILLED",
    amount: "49.9",
    currencyCode: "EUR",
  },
  {
    email: "jane@example.com",
    legacyResourceId: "450789470",
    name: "#1002",
    createdAt: "2026-11-02T09:30:00Z",
    displayFinancialStatus: "PENDING",
    displayFulfillmentStatus: "UNFULFILLED",
    amount: "120.00",
    currencyCode: "EUR",
  },
  {
    email: "someone@else.com",
    legacyResourceId: "1",
    name: "#0001",
    createdAt: "2026-11-02T09:30:00Z",
    displayFinancialStatus: "PAID",
    displayFulfillmentStatus: "FULFILLED",
    amount: "1.00",
    currencyCode: "EUR",
  },
);
stripe.customers.push({
  id: "cus_Jane123",
  email: "jane@example.com",
  name: "Jane Doe",
  subscriptions: [{
    id: "sub_1",
    status: "active",
    cancel_at_period_end: false,
    product: "Pro plan",
    nickname: null,
    unit_amount: 2900,
    currency: "eur",
    interval: "month",
    current_period_end: 1798761600,
  }, {
    id: "sub_2",
    status: "canceled",
    cancel_at_period_end: false,
    product: "Starter",
    nickname: "starter-monthly",
    unit_amount: 900,
    currency: "eur",
    interval: "month",
    current_period_end: 1790000000,
  }],
});

async function conversationOf(email: string | null, key = "acme-helper") {
  const r = await postStream(s.url, key, {
    visitor_id: crypto.randomUUID(),
    message: "Where is my order?",
    ...(email ? { meta: { visitor: { name: "Jane", email } } } : {}),
  }, freshIp());
  return r.events[0]!.data.conversation_id as string;
}
// Customer context's own calls: the catalogue's background sync (started by every link)
// may read products from the same fake at any moment, and is not what these steps judge.
const shopifyContextCalls = () =>
  shopify.requests.filter((r) => !/\bproducts\b/.test(r.query)).length;
const contextCalls = () => shopifyContextCalls() + stripe.requests.length;
const context = (id: string, token: string = T.acme.agent.agent) =>
  http(s.url, "GET", `/api/agent/conversations/${id}/customer-context`, { token });

Deno.test("customer context", serverTestOptions, async (t) => {
  await t.step("linked and found: orders and subscriptions of the visitor's e-mail", async () => {
    const id = await conversationOf("jane@example.com");
    const r = await context(id);
    assertEquals(r.status, 200);
    assertEquals(r.body.email, "jane@example.com");
    assertEquals(r.body.storefront, {
      connected: true,
      orders: [
        {
          name: "#1002",
          total: "120.00 EUR",
          financial_status: "pending",
          fulfillment_status: "unfulfilled",
          created_at: "2026-11-02T09:30:00.000Z",
          url: "https://acme-store.myshopify.com/admin/orders/450789470",
        },
        {
          name: "#1001",
          total: "49.90 EUR",
          financial_status: "paid",
          fulfillment_status: "fulfilled",
          created_at: "2026-10-01T10:00:00.000Z",
          url: "https://acme-store.myshopify.com/admin/orders/450789469",
        },
      ],
    });
    assertEquals(r.body.billing, {
      connected: true,
      data: {
        found: true,
        customer: { name: "Jane Doe", email: "jane@example.com" },
        subscriptions: [
          {
            status: "active",
            plan: "Pro plan",
            amount: "29.00 EUR / month",
            renews: new Date(1798761600 * 1000).toISOString(),
          },
          { status: "canceled", plan: "Starter", amount: "9.00 EUR / month", renews: null },
        ],
      },
    });
    // The real request shapes reached the fakes, with the stored credentials.
    const sq = shopify.requests.at(-1)!;
    assertEquals(sq.path, "/admin/api/2026-10/graphql.json");
    assertEquals(sq.token, shopify.accessToken);
    assertEquals(sq.variables.query, 'email:"jane@example.com"');
    assertOk(sq.query.includes("orders("));
    const customers = stripe.requests.find((q) => q.path === "/v1/customers")!;
    assertEquals(customers.authorization, `Bearer ${stripe.secretKey}`);
    assertEquals(customers.search.get("email"), "jane@example.com");
    const subs = stripe.requests.find((q) => q.path === "/v1/subscriptions")!;
    assertEquals(subs.search.get("customer"), "cus_Jane123");
    assertEquals(subs.search.get("status"), "all");
  });

  await t.step("answers are cached briefly per conversation", async () => {
    const id = await conversationOf("jane@example.com");
    await context(id);
    const calls = contextCalls();
    const again = await context(id);
    assertEquals(again.status, 200);
    assertEquals(again.body.storefront.orders.length, 2);
    assertEquals(contextCalls(), calls);
  });

  await t.step("linked and not found: no orders, billing found false", async () => {
    const id = await conversationOf("nobody@example.com");
    const r = await context(id);
    assertEquals(r.status, 200);
    assertEquals(r.body.storefront, { connected: true, orders: [] });
    assertEquals(r.body.billing, { connected: true, data: { found: false } });
    // No e-mail on the conversation: nothing to look up, no call made.
    const calls = contextCalls();
    const anon = await context(await conversationOf(null));
    assertEquals(anon.body.email, null);
    assertEquals(anon.body.storefront, { connected: true, orders: [] });
    assertEquals(anon.body.billing, { connected: true, data: { found: false } });
    assertEquals(contextCalls(), calls);
  });

  await t.step("linked and failing: connected, empty, never a 500", async () => {
    for (const mode of ["server_error", "hang"] as const) {
      shopify.mode = mode;
      stripe.mode = mode;
      try {
        const id = await conversationOf("jane@example.com");
        const t0 = performance.now();
        const r = await context(id);
        assertEquals(r.status, 200, mode);
        assertEquals(r.body.storefront, { connected: true, orders: [] }, mode);
        assertEquals(r.body.billing, { connected: true, data: null }, mode);
        assertOk(performance.now() - t0 < 3000, `${mode} answered in time`);
        // A failure is not cached: the recovered service shows at once.
        shopify.mode = "ok";
        stripe.mode = "ok";
        const later = await context(id);
        assertEquals(later.body.storefront.orders.length, 2, mode);
        assertEquals(later.body.billing.data.found, true, mode);
      } finally {
        shopify.mode = "ok";
        stripe.mode = "ok";
      }
    }
  });

  await t.step("a wrong credential degrades the same way", async () => {
    await linkIntegration(adminDeps(), {
      workspace: "acme",
      service: "billing",
      credential: "sk_test_wrong",
    });
    try {
      const r = await context(await conversationOf("jane@example.com"));
      assertEquals(r.status, 200);
      assertEquals(r.body.billing, { connected: true, data: null });
      assertEquals(r.body.storefront.orders.length, 2);
    } finally {
      await linkIntegration(adminDeps(), {
        workspace: "acme",
        service: "billing",
        credential: stripe.secretKey,
      });
    }
  });

  await t.step("an address the policy refuses is never called", async () => {
    await s.deps.sql`
      UPDATE workspace_integrations SET account = 'localhost'
       WHERE service = 'storefront'`;
    // Without the base URL override the shop's own address is used: refused.
    const { customerContext } = await import(
      "../../domain/customer_context/customer_context.ts"
    );
    const before = shopifyContextCalls();
    const deps = { ...s.deps, config: { ...s.deps.config, shopifyBaseUrl: null } };
    const r = await customerContext(deps, {
      workspaceId: (await s.deps.sql<{ id: number }[]>`
        SELECT id FROM workspaces WHERE slug = 'acme'`)[0]!.id,
      conversationId: await conversationOf("jane@example.com"),
    });
    assertEquals(r.storefront, { connected: true, orders: [] });
    assertEquals(shopifyContextCalls(), before);
    await linkIntegration(adminDeps(), {
      workspace: "acme",
      service: "storefront",
      shop: "acme-store.myshopify.com",
      credential: shopify.accessToken,
    });
  });

  await t.step("the crawler's allowance does not open the integrations' addresses", async () => {
    const { customerContext } = await import(
      "../../domain/customer_context/customer_context.ts"
    );
    const before = contextCalls();
    // The fakes allowed for the crawler only: the integrations are refused.
    const config = {
      ...s.deps.config,
      crawlAllowPrivate: true,
      crawlAllowHosts: [shopify.hostPort, stripe.hostPort],
      integrationAllowHosts: [],
    };
    const r = await customerContext({ ...s.deps, config }, {
      workspaceId: (await s.deps.sql<{ id: number }[]>`
        SELECT id FROM workspaces WHERE slug = 'acme'`)[0]!.id,
      conversationId: await conversationOf("jane@example.com"),
    });
    assertEquals(r.storefront, { connected: true, orders: [] });
    assertEquals(r.billing.data, null);
    assertEquals(contextCalls(), before);
  });

  await t.step("not linked: connected false, no orders, data null", async () => {
    await unlinkIntegration(adminDeps(), { workspace: "acme", service: "storefront" });
    await unlinkIntegration(adminDeps(), { workspace: "acme", service: "billing" });
    const calls = contextCalls();
    const r = await context(await conversationOf("jane@example.com"));
    assertEquals(r.status, 200);
    assertEquals(r.body, {
      email: "jane@example.com",
      storefront: { connected: false, orders: [] },
      billing: { connected: false, data: null },
    });
    assertEquals(contextCalls(), calls);
  });

  await t.step("credentials are encrypted at rest", async () => {
    await linkIntegration(adminDeps(), {
      workspace: "acme",
      service: "billing",
      credential: stripe.secretKey,
    });
    const rows = await s.deps.sql<{ ciphertext: string; last_four: string }[]>`
      SELECT ciphertext, last_four FROM workspace_integrations`;
    assertEquals(rows.length, 1);
    assertOk(!rows[0]!.ciphertext.includes(stripe.secretKey));
    assertEquals(rows[0]!.last_four, stripe.secretKey.slice(-4));
  });

  await t.step("404 for another workspace's or an unknown conversation", async () => {
    const id = await conversationOf("jane@example.com");
    assertEquals((await context(id, T.globex.owner.agent)).status, 404);
    assertEquals((await context(crypto.randomUUID())).status, 404);
    assertEquals((await context(id, T.acme.agent.api)).status, 403);
    assertEquals(
      (await http(s.url, "GET", `/api/agent/conversations/${id}/customer-context`)).status,
      401,
    );
  });
});

Deno.test("stop the customer context test server", serverTestOptions, async () => {
  await s.stop();
  await Promise.all([ai.close(), shopify.close(), stripe.close()]);
});
