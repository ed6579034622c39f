/// <reference lib="dom" />
/**
 * Recommended products in a real browser (headless Chromium): a product
 * question's reply is followed by an accessible list of cards (image, name,
 * price in the visitor's locale, stock, a Buy button), and the button opens
 * the product's buy_url in a new tab and counts the click. Screenshot:
 * tests/output/widget-recommendations.png.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { startFakeShopify } from "../helpers/fake_shopify.ts";
import { http } from "../helpers/http.ts";
import { launchChromium } from "../helpers/browser.ts";

const OUTPUT = new URL("../output/", import.meta.url);
const PIXEL = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

Deno.test("recommended products show as cards and open buy_url", serverTestOptions, async (t) => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const ai = startFakeAi({ reply: "The Summit Hiking Boots are waterproof and in stock." });
  const shopify = startFakeShopify();
  const base = {
    handle: "",
    currencyCode: "EUR",
    imageUrl: "https://cdn.example.com/boot.png",
    tracksInventory: true,
    totalInventory: 3,
  };
  shopify.products.push(
    {
      ...base,
      id: "7002",
      title: "Summit Hiking Boots",
      handle: "summit",
      description: "Waterproof leather boots for long hikes.",
      price: "1299.90",
      variantId: "700201",
    },
    {
      ...base,
      id: "7001",
      title: "Trail Hiking Boots",
      handle: "trail",
      description: "Waterproof trail boots.",
      price: "149.00",
      variantId: "700101",
      totalInventory: 0,
    },
  );
  const seed = standardSeed();
  Object.assign(seed.workspaces[0]!, {
    integrations: {
      storefront: { shop: "acme-store.myshopify.com", access_token: shopify.accessToken },
    },
  });
  const s = await startTestServer({
    seed,
    env: {
      AI_BASE_URL: ai.baseUrl,
      SHOPIFY_BASE_URL: shopify.baseUrl,
      CONTEXT_ALLOW_HOSTS: shopify.hostPort,
    },
  });
  const browser = await launchChromium();
  try {
    for (let i = 0; i < 300; i++) {
      const [row] = await s.deps.sql<{ status: string }[]>`SELECT status FROM catalogue_syncs`;
      if (row?.status === "ready") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // A German visitor: prices in their locale's format.
    const context = await browser.newContext({ locale: "de-DE" });
    // The store and its CDN, answered in the browser: the test has no network.
    await context.route(
      "https://cdn.example.com/**",
      (r) => r.fulfill({ contentType: "image/png", body: PIXEL as unknown as Buffer }),
    );
    await context.route(
      "https://shop.example.com/**",
      (r) => r.fulfill({ contentType: "text/html", body: "<title>Cart</title>" }),
    );
    const page = await context.newPage();
    const cards = page.locator("ul.products[aria-label='Recommended products'] li.product");

    await t.step("a product question is answered with cards under the reply", async () => {
      await page.goto(`${s.url}/demo?key=acme-helper`);
      await page.locator(".launcher").click();
      const input = page.locator("textarea[aria-label=Message]");
      await input.fill("Do you have waterproof hiking boots?");
      await input.press("Enter");
      await cards.first().waitFor({ timeout: 15_000 });
      assertEquals(await cards.count(), 2);
      const first = cards.first();
      assertEquals(await first.locator(".pname").innerText(), "Summit Hiking Boots");
      // Intl separates amount and sign with a no-break space.
      const text = (await first.innerText()).replace(/\s/g, " ");
      assertOk(text.includes("1.299,90 €"), text);
      assertOk((await first.innerText()).includes("In stock"));
      assertOk((await cards.last().innerText()).includes("Out of stock"), "sold out ranks last");
      assertEquals(
        await first.locator("img").getAttribute("src"),
        "https://cdn.example.com/boot.png",
      );
      const buy = first.getByRole("button", {
        name: "Buy Summit Hiking Boots (opens in a new tab)",
      });
      assertOk(await buy.isVisible());
      await page.screenshot({ path: new URL("widget-recommendations.png", OUTPUT).pathname });
    });

    await t.step("Buy opens buy_url in a new tab and the click is counted", async () => {
      const [tab] = await Promise.all([
        context.waitForEvent("page"),
        cards.first().getByRole("button").click(),
      ]);
      await tab.waitForLoadState();
      assertEquals(tab.url(), "https://shop.example.com/cart/700201:1");
      let clicks = 0;
      for (let i = 0; i < 50 && clicks === 0; i++) {
        const a = await http(s.url, "GET", "/api/portal/analytics", { token: T.acme.owner.portal });
        clicks = a.body.data.recommendations.clicks;
        if (!clicks) await new Promise((r) => setTimeout(r, 100));
      }
      assertEquals(clicks, 1);
    });
    await context.close();
  } finally {
    await browser.close();
    await s.stop();
    await ai.close();
    await shopify.close();
  }
});
