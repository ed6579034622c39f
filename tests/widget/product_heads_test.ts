/**
 * Which products a shopper's question names (issue 42, precision): a product
 * is what its name's head noun says ("Fountain Pen Ink Cartridges" are
 * cartridges), so a question for fountain pens is shown pens, not the ink and
 * the converter beside them; a product that is only what the wanted one goes
 * with ("a charger for my hedge trimmer": the trimmer) is not shown, unless
 * the question names nothing else ("a gift for a fountain pen lover"); and
 * "the cheapest" or "the most expensive" shows the one at that end of the
 * price range. Through the widget stream, over a shop served by the
 * Shopify-shaped fake and synced by the real job.
 */
import { assertEquals } from "../helpers/assert.ts";
import { serverTestOptions } from "../helpers/test_server.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { type FakeProduct, startFakeShopify } from "../helpers/fake_shopify.ts";
import { shownProductNames } from "./widget_client.ts";
import { startShopServer } from "./shop_server.ts";

const ai = startFakeAi();
ai.reply = "Here is what I found.";
const shopify = startFakeShopify();

function product(id: string, title: string, price: string, description: string): FakeProduct {
  return {
    id,
    title,
    description,
    handle: title.toLowerCase().replace(/\W+/g, "-"),
    price,
    currencyCode: "GBP",
    imageUrl: null,
    tracksInventory: true,
    totalInventory: 5,
    variantId: `${id}01`,
  };
}
shopify.products.push(
  product(
    "9101",
    "Beginner Fountain Pen, Fine Nib",
    "18.00",
    "A light fountain pen to start with.",
  ),
  product("9102", "Brass Fountain Pen, Medium Nib", "62.00", "A heavy brass fountain pen."),
  product(
    "9103",
    "Fountain Pen Ink Cartridges, Blue-Black, 20 Pack",
    "6.00",
    "Standard international cartridges for most fountain pens.",
  ),
  product(
    "9104",
    "Ink Converter for Fountain Pens",
    "5.00",
    "Fill your fountain pen from a bottle of ink.",
  ),
  product("9105", "Heavy-Duty Stapler, 100 Sheets", "32.00", "Staples up to 100 sheets at once."),
  product(
    "9106",
    "Mini Stapler with 1000 Staples",
    "7.50",
    "A pocket stapler for the desk drawer.",
  ),
  product("9107", "Cordless Hedge Trimmer 18V 45 cm", "89.00", "Trims hedges on one battery."),
  product(
    "9108",
    "Battery Charger 18V",
    "24.00",
    "Charges every 18V battery of our cordless garden tools in an hour.",
  ),
);

const s = await startShopServer({ ai, shopify });

const shown = (message: string) => shownProductNames(s.url, "acme-helper", message);

Deno.test("the products a question names", serverTestOptions, async (t) => {
  try {
    await steps(t);
  } finally {
    await s.stop();
    await shopify.close();
    await ai.close();
  }
});

async function steps(t: Deno.TestContext) {
  const pens = ["Beginner Fountain Pen, Fine Nib", "Brass Fountain Pen, Medium Nib"];

  await t.step("fountain pens are pens, not the ink and converter named after them", async () => {
    assertEquals(await shown("do you have any fountain pens?"), pens);
  });

  await t.step("what the wanted product goes with is not shown", async () => {
    assertEquals(await shown("a charger for my hedge trimmer"), ["Battery Charger 18V"]);
  });

  await t.step("unless the question names nothing else", async () => {
    const gifts = await shown("a gift for a fountain pen lover");
    assertEquals(gifts.filter((n) => pens.includes(n)).length > 0, true, gifts.join(", "));
  });

  await t.step("the cheapest and the most expensive", async () => {
    assertEquals(await shown("what's the cheapest stapler you've got?"), [
      "Mini Stapler with 1000 Staples",
    ]);
    assertEquals(await shown("your most expensive fountain pen"), [
      "Brass Fountain Pen, Medium Nib",
    ]);
  });
}
