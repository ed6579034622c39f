/**
 * Product recommendations: a linked Shopify store's catalogue (served by the
 * Shopify-shaped fake through the real Admin API client, over two pages) is
 * synced by the background job, and a widget stream for a product question
 * carries `recommendations` after the last delta and before `done`, with the
 * spec's fields, in stock first, the prompt naming the same products. A
 * support question, `recommend_mode: off`, v1 messages and another workspace
 * get none; clicks and impressions reach the portal analytics; unlinking
 * removes the catalogue.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { type FakeProduct, startFakeShopify } from "../helpers/fake_shopify.ts";
import { freshIp, postStream, waitForCatalogue, WIDGET_ENV } from "./widget_client.ts";
import { unlinkIntegration } from "../../domain/admin/link_integration.ts";

const ai = startFakeAi();
ai.reply = "Here is what I found.";
const shopify = startFakeShopify();
// Globex links its own store (same origin, its own token): its catalogue must never include
// Acme's products.
const GLOBEX_TOKEN = "shpat_globex_token_9876";

function product(id: string, title: string, more: Partial<FakeProduct> = {}): FakeProduct {
  return {
    id,
    title,
    description: `${title}, made to last.`,
    handle: title.toLowerCase().replace(/\W+/g, "-"),
    price: "10.00",
    currencyCode: "EUR",
    imageUrl: `https://cdn.example.com/${id}.jpg`,
    tracksInventory: true,
    totalInventory: 5,
    variantId: `${id}01`,
    ...more,
  };
}
// 100 ordinary products first, so the boots are on the second page.
for (let i = 0; i < 100; i++) shopify.products.push(product(String(1000 + i), `Desk lamp ${i}`));
shopify.products.push(
  product("7001", "Waterproof Hiking Boots Trail", {
    description: "Our best waterproof hiking boots, sold out until spring.",
    price: "149.00",
    totalInventory: 0,
  }),
  product("7002", "Summit Hiking Boots", {
    description: "Waterproof leather boots for long hikes.",
    price: "129.90",
    imageUrl: null,
  }),
  product("7003", "Ridge Hiking Boots", { description: "Light boots for day hikes.", price: "99" }),
  product("7004", "Hidden Hiking Boots", { published: false }),
);

shopify.otherStores[GLOBEX_TOKEN] = [
  product("9001", "Globex Hammock", { description: "A waterproof hammock for hikers." }),
];
const seed = standardSeed();
Object.assign(seed.workspaces[1]!, {
  integrations: {
    storefront: { shop: "globex-store.myshopify.com", access_token: GLOBEX_TOKEN },
  },
});
const acme = seed.workspaces[0]!;
Object.assign(acme, {
  integrations: {
    storefront: { shop: "acme-store.myshopify.com", access_token: shopify.accessToken },
  },
});
const helper = acme.chatbots![0]!;
(acme.chatbots! as Record<string, unknown>[]).push({
  ...helper,
  name: "Acme Quiet",
  public_key: "acme-quiet",
  branding: { recommend_mode: "off" },
});
const s = await startTestServer({
  seed,
  env: {
    ...WIDGET_ENV,
    AI_BASE_URL: ai.baseUrl,
    SHOPIFY_BASE_URL: shopify.baseUrl,
    CRAWL_ALLOW_PRIVATE: "0",
    CONTEXT_ALLOW_HOSTS: shopify.hostPort,
  },
});

async function catalogueSize(slug: string): Promise<number> {
  const [row] = await s.deps.sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM catalogue_products p JOIN workspaces w ON w.id = p.workspace_id
     WHERE w.slug = ${slug}`;
  return row!.n;
}

const ask = (key: string, message: string) =>
  postStream(s.url, key, { visitor_id: crypto.randomUUID(), message }, freshIp());

Deno.test("product recommendations", serverTestOptions, async (t) => {
  await t.step("linking syncs the catalogue through the Admin API, every page", async () => {
    await waitForCatalogue(s.deps.sql);
    assertEquals(await catalogueSize("acme"), 103); // the unpublished product is left out
    const productQueries = shopify.requests.filter((r) => r.query.includes("products("));
    assertOk(productQueries.length >= 2, "two pages were read");
    assertEquals(productQueries[0]!.token, shopify.accessToken);
    assertOk(productQueries.some((r) => typeof r.variables.after === "string"));
    if (s.deps.db.vector) {
      // The bot's provider has embeddings: products are embedded for the vector leg.
      const [row] = await s.deps.sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM catalogue_products p JOIN workspaces w ON w.id = p.workspace_id
         WHERE w.slug = 'acme' AND p.embedding_model IS NOT NULL`;
      assertEquals(row!.n, 103);
    }
  });

  await t.step(
    "a product question streams recommendations before done, in stock first",
    async () => {
      const r = await ask("acme-helper", "Do you have waterproof hiking boots?");
      assertEquals(r.status, 200);
      const names = r.events.map((e) => e.event);
      const at = names.indexOf("recommendations");
      assertOk(at > 0, `recommendations sent: ${names.join(",")}`);
      assertEquals(names[at - 1], "delta");
      assertEquals(names.slice(at + 1), ["done"]);
      const products = r.events[at]!.data.products;
      assertEquals(Object.keys(r.events[at]!.data), ["products"]);
      assertOk(products.length >= 2 && products.length <= 3);
      for (const p of products) {
        assertEquals(Object.keys(p).sort(), [
          "buy_url",
          "currency",
          "description",
          "id",
          "image_url",
          "in_stock",
          "name",
          "price",
          "url",
        ]);
      }
      const summit = products.find((p: { name: string }) => p.name === "Summit Hiking Boots");
      assertEquals(summit, {
        id: "gid://shopify/Product/7002",
        name: "Summit Hiking Boots",
        price: 129.9,
        currency: "EUR",
        url: "https://shop.example.com/products/summit-hiking-boots",
        buy_url: "https://shop.example.com/cart/700201:1",
        image_url: null,
        description: "Waterproof leather boots for long hikes.",
        in_stock: true,
      });
      // The best full-text match is sold out: it ranks last.
      const last = products[products.length - 1];
      assertEquals(last.name, "Waterproof Hiking Boots Trail");
      assertEquals(last.in_stock, false);
      assertOk(products.slice(0, -1).every((p: { in_stock: boolean }) => p.in_stock));
      assertOk(!products.some((p: { name: string }) => p.name === "Hidden Hiking Boots"));
      // The prompt named exactly the products shown.
      const system = ai.requests[ai.requests.length - 1]!.messages[0]!.content;
      assertOk(system.includes("PRODUCTS SHOWN BELOW YOUR ANSWER"));
      for (const p of products) assertOk(system.includes(p.name));
      assertOk(!system.includes("Desk lamp"));
    },
  );

  await t.step("a shopper's word found only in a description still shows products", async () => {
    // "leather" is in no product's name: only the Summit boots' description holds it.
    const r = await ask("acme-helper", "Do you have anything in leather?");
    const event = r.events.find((e) => e.event === "recommendations");
    assertOk(event, `recommendations sent: ${r.events.map((e) => e.event).join(",")}`);
    assertEquals(event.data.products[0].name, "Summit Hiking Boots");
  });

  await t.step("a support question shows no products", async () => {
    const r = await ask("acme-helper", "How do I return my hiking boots?");
    assertEquals(r.events.map((e) => e.event).includes("recommendations"), false);
    assertEquals(r.events[r.events.length - 1]!.event, "done");
    const system = ai.requests[ai.requests.length - 1]!.messages[0]!.content;
    assertOk(!system.includes("PRODUCTS SHOWN"));
  });

  await t.step("recommend_mode off never sends recommendations", async () => {
    const r = await ask("acme-quiet", "Do you have waterproof hiking boots?");
    assertEquals(r.status, 200);
    assertEquals(r.events.map((e) => e.event).includes("recommendations"), false);
    assertEquals(r.events[r.events.length - 1]!.event, "done");
  });

  await t.step("another workspace never sees this catalogue", async () => {
    for (let i = 0; i < 100 && await catalogueSize("globex") === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assertEquals(await catalogueSize("globex"), 1);
    const r = await ask("globex-bot", "Do you have waterproof hiking boots?");
    assertEquals(r.status, 200);
    const shown = r.events.find((e) => e.event === "recommendations")?.data.products ?? [];
    assertEquals(
      shown.map((p: { name: string }) => p.name).filter((n: string) => n !== "Globex Hammock"),
      [],
    );
    const system = ai.requests[ai.requests.length - 1]!.messages[0]!.content;
    assertOk(!system.includes("Hiking Boots"));
    const hammock = await ask("globex-bot", "Do you sell a hammock?");
    const mine = hammock.events.find((e) => e.event === "recommendations")!.data.products;
    assertEquals(mine.map((p: { name: string }) => p.name), ["Globex Hammock"]);
  });

  await t.step("v1 messages carry no products", async () => {
    const r = await http(s.url, "POST", "/api/v1/chatbots/acme-helper/messages", {
      token: T.acme.owner.api,
      body: { visitor_id: "v1-shopper", message: "Do you have waterproof hiking boots?" },
    });
    assertEquals(r.status, 200, r.text);
    assertOk(!JSON.stringify(r.body).includes("Hiking Boots"));
  });

  await t.step("clicks and impressions reach the portal analytics", async () => {
    const visitor = crypto.randomUUID();
    const r = await postStream(s.url, "acme-helper", {
      visitor_id: visitor,
      message: "Do you have waterproof hiking boots?",
    }, freshIp());
    const conversation = r.events[0]!.data.conversation_id;
    const shown = r.events.find((e) => e.event === "recommendations")!.data.products;
    const click = (product_id: string, visitor_id = visitor) =>
      http(s.url, "POST", "/widget/acme-helper/recommendations/click", {
        body: { visitor_id, conversation_id: conversation, product_id },
        headers: freshIp(),
      });
    assertEquals((await click(shown[0].id)).status, 200);
    assertEquals((await click(shown[0].id)).status, 200); // the same click counts once
    assertEquals((await click("gid://shopify/Product/1000")).status, 404); // never shown here
    assertEquals((await click(shown[0].id, crypto.randomUUID())).status, 404); // not theirs
    const a = await http(s.url, "GET", "/api/portal/analytics", { token: T.acme.owner.portal });
    assertEquals(a.status, 200);
    const recs = a.body.data.recommendations;
    assertOk(recs.impressions >= 4, `impressions ${recs.impressions}`);
    assertEquals(recs.clicks, 1);
  });

  await t.step("the portal shows the catalogue; the next sync is queued hours later", async () => {
    const r = await http(s.url, "GET", "/api/portal/catalogue", { token: T.acme.owner.portal });
    assertEquals(r.status, 200);
    const { synced_at, ...rest } = r.body.data;
    assertEquals(rest, {
      linked: true,
      shop: "acme-store.myshopify.com",
      status: "ready",
      products: 103,
      error: null,
    });
    assertOk(typeof synced_at === "string");
    const [job] = await s.deps.sql<{ status: string; hours: number }[]>`
      SELECT status, extract(epoch FROM run_at - now())::float8 / 3600 AS hours
        FROM jobs WHERE kind = 'catalogue_sync'`;
    assertEquals(job!.status, "queued");
    assertOk(job!.hours > 5.9 && job!.hours <= 6, `next sync in ${job!.hours} h`);
  });

  await t.step("an on-demand sync brings the store's stock changes", async () => {
    const summit = shopify.products.find((p) => p.id === "7002")!;
    summit.totalInventory = 0;
    const before = (await http(s.url, "GET", "/api/portal/catalogue", {
      token: T.acme.owner.portal,
    })).body.data.synced_at;
    const r = await http(s.url, "POST", "/api/portal/catalogue/sync", {
      token: T.acme.owner.portal,
    });
    assertEquals(r.status, 200, r.text);
    assertEquals(r.body.data.status, "pending");
    await waitForCatalogue(s.deps.sql);
    for (let i = 0; i < 100; i++) {
      const now = await http(s.url, "GET", "/api/portal/catalogue", { token: T.acme.owner.portal });
      if (now.body.data.synced_at !== before && now.body.data.status === "ready") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const stream = await ask("acme-helper", "Do you have waterproof hiking boots?");
    const products = stream.events.find((e) => e.event === "recommendations")!.data.products;
    const names = products.map((p: { name: string; in_stock: boolean }) => [p.name, p.in_stock]);
    assertEquals(names[0], ["Ridge Hiking Boots", true]);
    assertOk(names.slice(1).every(([, inStock]: [string, boolean]) => !inStock), "sold out last");
    const viewer = await http(s.url, "POST", "/api/portal/catalogue/sync", {
      token: T.acme.viewer.portal,
    });
    assertEquals(viewer.status, 403);
  });

  await t.step("the portal sets recommend_mode; unknown values are refused", async () => {
    const put = (recommend_mode: string) =>
      http(s.url, "PUT", "/api/portal/chatbots/acme-helper", {
        token: T.acme.owner.portal,
        body: { name: "Acme Helper", recommend_mode },
      });
    const bad = await put("sometimes");
    assertEquals(bad.status, 422);
    assertOk(JSON.stringify(bad.body.errors).includes("recommend_mode"));
    assertEquals((await put("off")).status, 200);
    const r = await ask("acme-helper", "Do you have waterproof hiking boots?");
    assertEquals(r.events.map((e) => e.event).includes("recommendations"), false);
    assertEquals((await put("reactive")).status, 200);
  });

  await t.step("unlinking removes the catalogue", async () => {
    await unlinkIntegration({ sql: s.deps.sql, appKey: s.deps.appKey, now: new Date() }, {
      workspace: "acme",
      service: "storefront",
    });
    assertEquals(await catalogueSize("acme"), 0);
    const c = await http(s.url, "GET", "/api/portal/catalogue", { token: T.acme.owner.portal });
    assertEquals([c.body.data.linked, c.body.data.status, c.body.data.products], [
      false,
      "none",
      0,
    ]);
    const r = await ask("acme-helper", "Do you have waterproof hiking boots?");
    assertEquals(r.events.map((e) => e.event).includes("recommendations"), false);
  });

  await s.stop();
  await ai.close();
  await shopify.close();
});
