/**
 * The dashboard's Integrations procedures over HTTP, against fake Shopify and
 * Stripe servers speaking the real shapes: link, state, "test connection"
 * (stored and unsaved values; a wrong key, a missing scope, a restricted key,
 * a hanging service, an address the policy refuses), unlink; each role; 422
 * naming the field; the credential never returned whole nor stored in clear;
 * another workspace's token sees and touches nothing of this one's.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { waitUntil } from "../helpers/wait.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { startFakeShopify } from "../helpers/fake_shopify.ts";
import { startFakeStripe } from "../helpers/fake_stripe.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { D, dashboardSeed, ROLES } from "./dashboard_seed.ts";

const ai = startFakeAi();
const shopify = startFakeShopify("shpat_a1b2c3d4e5f6a7b8c9d0");
const stripe = startFakeStripe("sk_test_51FakeKeyForTheDashboard4242");
shopify.products.push({
  id: "1001",
  title: "Trail shoe",
  description: "A light shoe for rough paths.",
  handle: "trail-shoe",
  price: "89.00",
  currencyCode: "EUR",
  imageUrl: null,
  tracksInventory: false,
  totalInventory: 0,
  variantId: "5001",
});
const s = await startTestServer({
  seed: dashboardSeed(),
  env: {
    ...WIDGET_ENV,
    AI_BASE_URL: ai.baseUrl,
    SHOPIFY_BASE_URL: shopify.baseUrl,
    STRIPE_BASE_URL: stripe.baseUrl,
    CONTEXT_ALLOW_HOSTS: `${shopify.hostPort},${stripe.hostPort}`,
    CONTEXT_TIMEOUT_MS: "1500",
  },
});
const owner = D.acme.owner;
const call = (method: string, path: string, token: string, body?: unknown) =>
  http(s.url, method, path, { token, ...(body === undefined ? {} : { body }) });
const STORE = { shop: "acme-store.myshopify.com", credential: shopify.accessToken };
const BILLING = { credential: stripe.secretKey };

type View = {
  service: string;
  linked: boolean;
  shop: string | null;
  last_four: string | null;
  state: string;
  linked_by: { name: string } | null;
  last_check: { ok: boolean; message: string } | null;
  catalogue: { status: string; products: number } | null;
};
const list = async (token: string = owner) => {
  const r = await call("GET", "/api/dashboard/integrations", token);
  assertEquals(r.status, 200, r.text);
  return r.body.data as View[];
};
const viewOf = async (service: string, token: string = owner) =>
  (await list(token)).find((v) => v.service === service)!;

/** No answer of ours may hold a credential whole. */
function assertNoSecret(text: string) {
  for (const secret of [shopify.accessToken, stripe.secretKey, "shpat_wrong_token_0000"]) {
    assertOk(!text.includes(secret), `a credential was returned: ${text}`);
  }
}

Deno.test("dashboard integrations", serverTestOptions, async (t) => {
  try {
    await t.step("both services are listed, not linked, to every role that signs in", async () => {
      const views = await list();
      assertEquals(views.map((v) => [v.service, v.linked, v.state]), [
        ["storefront", false, "not_linked"],
        ["billing", false, "not_linked"],
      ]);
      assertEquals((await list(D.acme.viewer)).length, 2);
      assertEquals((await call("GET", "/api/dashboard/integrations", D.acme.agent)).status, 403);
      assertEquals((await http(s.url, "GET", "/api/dashboard/integrations")).status, 401);
    });

    await t.step("bad input is 422 naming the field, and nothing is stored", async () => {
      const cases: [string, unknown, string][] = [
        ["storefront", { credential: shopify.accessToken }, "shop"],
        ["storefront", { shop: "not a domain", credential: shopify.accessToken }, "shop"],
        ["storefront", { shop: "acme.myshopify.com" }, "credential"],
        ["storefront", { shop: "acme.myshopify.com", credential: "short" }, "credential"],
        ["billing", { credential: "pk_test_51PublishableKey000" }, "credential"],
        ["billing", { credential: "sk_test_has a space in it" }, "credential"],
        ["billing", { credential: "x".repeat(301) }, "credential"],
        ["crm", { credential: stripe.secretKey }, "service"],
      ];
      for (const [service, body, field] of cases) {
        const r = await call("PUT", `/api/dashboard/integrations/${service}`, owner, body);
        assertEquals(r.status, 422, `${service} ${JSON.stringify(body)}: ${r.text}`);
        assertEquals(typeof r.body.message, "string");
        assertOk(r.body.errors?.[field], `${field} named: ${r.text}`);
        assertNoSecret(r.text);
      }
      const pk = await call("PUT", "/api/dashboard/integrations/billing", owner, {
        credential: "pk_test_51PublishableKey000",
      });
      assertOk(/publishable key/.test(pk.body.errors.credential[0]), pk.text);
      assertEquals((await list()).every((v) => !v.linked), true);
    });

    await t.step("agents and viewers may not link, unlink or test", async () => {
      for (const [role, token] of ROLES) {
        if (role === "owner" || role === "administrator") continue;
        for (
          const [method, path, body] of [
            ["PUT", "/api/dashboard/integrations/storefront", STORE],
            ["DELETE", "/api/dashboard/integrations/storefront", undefined],
            ["POST", "/api/dashboard/integrations/storefront/test", STORE],
          ] as const
        ) {
          const r = await call(method, path, token, body);
          assertEquals(r.status, 403, `${role} ${method} ${path}`);
        }
      }
      assertEquals(shopify.requests.length, 0, "a refused test asks nobody");
    });

    await t.step("values can be tested before they are saved; nothing is recorded", async () => {
      const r = await call("POST", "/api/dashboard/integrations/storefront/test", owner, STORE);
      assertEquals(r.status, 200, r.text);
      assertEquals(r.body.tested, "given");
      assertEquals(r.body.ok, true);
      assertEquals(
        r.body.message,
        "Connected to the Shopify store “Acme Store” (acme-store.myshopify.com).",
      );
      assertEquals(r.body.found, {
        name: "Acme Store",
        account: "acme-store.myshopify.com",
        mode: null,
        currency: "EUR",
      });
      assertEquals(r.body.warnings, []);
      assertNoSecret(r.text);
      // The client spoke the real protocol with the token in its header.
      const asked = shopify.requests.at(-1)!;
      assertOk(/^\/admin\/api\/[\w-]+\/graphql\.json$/.test(asked.path), asked.path);
      assertEquals(asked.token, shopify.accessToken);
      assertEquals((await viewOf("storefront")).linked, false);
      // Stored test of what is not linked: 404.
      const none = await call("POST", "/api/dashboard/integrations/storefront/test", owner, {});
      assertEquals(none.status, 404, none.text);
    });

    await t.step("an owner links the store: last four only, encrypted at rest", async () => {
      const r = await call("PUT", "/api/dashboard/integrations/storefront", owner, {
        shop: "https://Acme-Store.myshopify.com/",
        credential: `  ${shopify.accessToken} `,
      });
      assertEquals(r.status, 200, r.text);
      assertNoSecret(r.text);
      assertEquals(r.body.data.linked, true);
      assertEquals(r.body.data.shop, "acme-store.myshopify.com");
      assertEquals(r.body.data.last_four, shopify.accessToken.slice(-4));
      assertEquals(r.body.data.state, "untested");
      assertEquals(r.body.data.linked_by.name, "Ada Owner");
      const listed = await call("GET", "/api/dashboard/integrations", D.acme.viewer);
      assertNoSecret(listed.text);
      const [row] = await s.deps.sql<{ ciphertext: string }[]>`
        SELECT ciphertext FROM workspace_integrations WHERE service = 'storefront'`;
      assertOk(row && !row.ciphertext.includes(shopify.accessToken), "stored encrypted");
      // The catalogue sync was queued and runs against the store.
      await waitUntil(
        async () => (await viewOf("storefront")).catalogue?.status === "ready",
        "the catalogue synced",
      );
      assertEquals((await viewOf("storefront")).catalogue?.products, 1);
    });

    await t.step("test connection names the shop and records the state", async () => {
      const r = await call("POST", "/api/dashboard/integrations/storefront/test", owner, {});
      assertEquals(r.status, 200, r.text);
      assertEquals(r.body.tested, "stored");
      assertEquals(r.body.ok, true);
      assertOk(r.body.message.includes("Acme Store"), r.body.message);
      assertNoSecret(r.text);
      const v = await viewOf("storefront", D.acme.viewer);
      assertEquals(v.state, "connected");
      assertEquals(v.last_check?.ok, true);
      assertOk(v.last_check!.message.includes("Acme Store"));
    });

    await t.step("a missing scope is a warning saying what will not work", async () => {
      shopify.scopes = ["read_orders"];
      try {
        const r = await call("POST", "/api/dashboard/integrations/storefront/test", owner, {});
        assertEquals(r.body.ok, true);
        assertEquals(r.body.warnings.length, 1);
        assertOk(/read_products/.test(r.body.warnings[0]), r.body.warnings[0]);
        assertOk((await viewOf("storefront")).last_check!.message.includes("read_products"));
        // A write scope includes its read scope.
        shopify.scopes = ["write_orders", "write_products"];
        const w = await call("POST", "/api/dashboard/integrations/storefront/test", owner, {});
        assertEquals(w.body.warnings, []);
      } finally {
        shopify.scopes = ["read_orders", "read_products"];
      }
    });

    await t.step("a wrong access token: a clear failure, recorded as failing", async () => {
      const replaced = await call(
        "PUT",
        "/api/dashboard/integrations/storefront",
        D.acme.administrator,
        {
          shop: "acme-store.myshopify.com",
          credential: "shpat_wrong_token_0000",
        },
      );
      assertEquals(replaced.status, 200, replaced.text);
      assertEquals(replaced.body.data.last_four, "0000");
      assertEquals(replaced.body.data.state, "untested", "a new credential's state starts afresh");
      const r = await call("POST", "/api/dashboard/integrations/storefront/test", owner, {});
      assertEquals(r.status, 200, r.text);
      assertEquals(r.body.ok, false);
      assertEquals(r.body.found, null);
      assertOk(/refused the access token \(401\)/.test(r.body.message), r.body.message);
      assertNoSecret(r.text);
      const v = await viewOf("storefront");
      assertEquals(v.state, "failing");
      assertEquals(v.last_check?.ok, false);
      // Put the right one back for the steps below.
      assertEquals(
        (await call("PUT", "/api/dashboard/integrations/storefront", owner, STORE)).status,
        200,
      );
    });

    await t.step("a service that fails or hangs is named, never a 500", async () => {
      shopify.mode = "server_error";
      try {
        const r = await call("POST", "/api/dashboard/integrations/storefront/test", owner, {});
        assertEquals(r.status, 200);
        assertEquals(r.body.ok, false);
        assertOk(/Shopify answered 500/.test(r.body.message), r.body.message);
        shopify.mode = "redirect";
        const moved = await call("POST", "/api/dashboard/integrations/storefront/test", owner, {});
        assertEquals(moved.body.ok, false);
        assertOk(/redirects elsewhere \(301\): use the store's myshopify/.test(moved.body.message));
        shopify.mode = "hang";
        const started = Date.now();
        const h = await call("POST", "/api/dashboard/integrations/storefront/test", owner, {});
        assertEquals(h.body.ok, false);
        assertOk(/did not answer within 1\.5 s/.test(h.body.message), h.body.message);
        assertOk(Date.now() - started < 10_000, "the deadline held");
      } finally {
        shopify.mode = "ok";
      }
    });

    await t.step("billing: linked, tested, named, in test mode", async () => {
      const r = await call("PUT", "/api/dashboard/integrations/billing", owner, BILLING);
      assertEquals(r.status, 200, r.text);
      assertNoSecret(r.text);
      assertEquals(r.body.data.last_four, "4242");
      assertEquals(r.body.data.shop, null);
      assertEquals(r.body.data.catalogue, null);
      const test = await call("POST", "/api/dashboard/integrations/billing/test", owner, {});
      assertEquals(test.status, 200, test.text);
      assertEquals(test.body.ok, true);
      assertEquals(
        test.body.message,
        "Connected to the Stripe account “Acme Ltd” (acct_1FakeAcme) in test mode.",
      );
      assertEquals(test.body.found, {
        name: "Acme Ltd",
        account: "acct_1FakeAcme",
        mode: "test",
        currency: "EUR",
      });
      assertEquals(
        stripe.requests.at(-1)!.authorization,
        `Bearer ${stripe.secretKey}`,
        "the official client's auth",
      );
      assertEquals((await viewOf("billing")).state, "connected");
    });

    await t.step("billing: a wrong key and a restricted key's limits, clearly", async () => {
      const wrong = await call("POST", "/api/dashboard/integrations/billing/test", owner, {
        credential: "sk_test_51ThisKeyIsNotKnown0001",
      });
      assertEquals(wrong.body.tested, "given");
      assertEquals(wrong.body.ok, false);
      assertOk(/Stripe refused the key \(401\)/.test(wrong.body.message), wrong.body.message);
      assertEquals((await viewOf("billing")).state, "connected", "an unsaved test records nothing");

      stripe.forbidden = ["/v1/account", "/v1/subscriptions"];
      const limited = await call("POST", "/api/dashboard/integrations/billing/test", owner, {});
      assertEquals(limited.body.ok, true);
      assertEquals(
        limited.body.message,
        "Connected to Stripe in test mode; the key may not read the account's name.",
      );
      assertOk(/subscriptions/.test(limited.body.warnings[0]), limited.text);
      stripe.forbidden = ["/v1/customers"];
      const blind = await call("POST", "/api/dashboard/integrations/billing/test", owner, {});
      assertEquals(blind.body.ok, false);
      assertOk(/may not read customers/.test(blind.body.message), blind.body.message);
      assertEquals((await viewOf("billing")).state, "failing");
      stripe.forbidden = [];
    });

    await t.step("another workspace's token sees and changes nothing of this one", async () => {
      const globex = D.globex.owner;
      const views = await list(globex);
      assertEquals(views.map((v) => v.linked), [false, false]);
      assertNoSecret(JSON.stringify(views));
      const test = await call("POST", "/api/dashboard/integrations/storefront/test", globex, {});
      assertEquals(test.status, 404, test.text);
      assertEquals(test.body.message.includes("acme"), false);
      const unlink = await call("DELETE", "/api/dashboard/integrations/storefront", globex);
      assertEquals(unlink.status, 200);
      assertEquals(unlink.body.message, "The storefront (Shopify) was not linked.");
      assertEquals((await viewOf("storefront")).linked, true, "acme's store is still linked");
    });

    await t.step("unlinking is immediate, in customer context too, and idempotent", async () => {
      const conversation = (await postStream(s.url, "acme-helper", {
        visitor_id: crypto.randomUUID(),
        message: "Where is my order?",
      }, freshIp())).events[0]!.data.conversation_id as string;
      const context = () =>
        http(s.url, "GET", `/api/agent/conversations/${conversation}/customer-context`, {
          token: T.acme.agent.agent,
        });
      assertEquals((await context()).body.storefront.connected, true);
      const r = await call("DELETE", "/api/dashboard/integrations/storefront", owner);
      assertEquals(r.status, 200, r.text);
      assertEquals(
        r.body.message,
        "The storefront (Shopify) was unlinked; its product catalogue was removed.",
      );
      assertEquals((await context()).body.storefront.connected, false, "not cached past unlinking");
      const v = await viewOf("storefront");
      assertEquals([v.linked, v.last_four, v.state, v.catalogue?.status], [
        false,
        null,
        "not_linked",
        "none",
      ]);
      const again = await call("DELETE", "/api/dashboard/integrations/storefront", owner);
      assertEquals(again.body.message, "The storefront (Shopify) was not linked.");
      const test = await call("POST", "/api/dashboard/integrations/storefront/test", owner, {});
      assertEquals(test.status, 404);
      assertEquals(
        (await call("DELETE", "/api/dashboard/integrations/billing", owner)).status,
        200,
      );
    });
  } finally {
    await s.stop();
    await Promise.all([shopify.close(), stripe.close(), ai.close()]);
  }
});

Deno.test(
  "dashboard integrations: the address policy holds for the test",
  serverTestOptions,
  async () => {
    const shop = startFakeShopify();
    // The fake is on 127.0.0.1 and not in CONTEXT_ALLOW_HOSTS: private, refused.
    const s2 = await startTestServer({
      seed: dashboardSeed(),
      env: { SHOPIFY_BASE_URL: shop.baseUrl, CONTEXT_ALLOW_HOSTS: "" },
    });
    try {
      const r = await http(s2.url, "POST", "/api/dashboard/integrations/storefront/test", {
        token: owner,
        body: { shop: "acme-store.myshopify.com", credential: shop.accessToken },
      });
      assertEquals(r.status, 200, r.text);
      assertEquals(r.body.ok, false);
      assertOk(/is not reachable from this server: Refused to fetch/.test(r.body.message), r.text);
      assertEquals(shop.requests.length, 0, "nothing reached the private address");
    } finally {
      await s2.stop();
      await shop.close();
    }
  },
);
