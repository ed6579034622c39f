/**
 * A need said in plain words finds its product (issue 42, the
 * recommendations half), through the widget stream, over a small shop served
 * by the Shopify-shaped fake and synced by the real job: a question whose
 * words the catalogue never uses ("couch") is served through the catalogue's
 * words WordNet relates to them ("sofa"); the verbs a need is said with
 * ("keep", "see"), which the help centre uses too, do not turn the shopper
 * into a support case; a compound the catalogue uses stands in for its part
 * ("rains": "raincoat"); a broader term finds the product ("wardrobe":
 * furniture), while an ambiguous related word ("seat", "light") is not
 * searched; a singular finds the plural the catalogue uses ("leaf":
 * "leaves"); a support question naming a price and
 * saying it with the same verbs still shows no products.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions } from "../helpers/test_server.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { type FakeProduct, startFakeShopify } from "../helpers/fake_shopify.ts";
import { shownProductNames } from "./widget_client.ts";
import { startShopServer } from "./shop_server.ts";

const ai = startFakeAi();
ai.reply = "Here is what I found.";
const shopify = startFakeShopify();

function product(id: string, title: string, price: string, more: Partial<FakeProduct>) {
  return {
    id,
    title,
    description: `${title}, made to last.`,
    handle: title.toLowerCase().replace(/\W+/g, "-"),
    price,
    currencyCode: "EUR",
    imageUrl: null,
    tracksInventory: true,
    totalInventory: 5,
    variantId: `${id}01`,
    ...more,
  } satisfies FakeProduct;
}
shopify.products.push(
  product("8201", "Beam 800 Front Light", "49.00", {
    description: "USB rechargeable 800 lumen light, bright enough for unlit roads.",
    productType: "Lights",
  }),
  product("8202", "Pet Sofa Throw", "39.00", {
    description: "Washable quilted throw that keeps hair and claws off the sofa.",
    productType: "Home",
  }),
  product("8203", "Steel Water Bottle", "19.00", {
    description: "Insulated steel bottle, 750 ml.",
    productType: "Bottles",
  }),
  product("8204", "Merino Beanie", "29.00", {
    description: "Soft merino wool hat for cold mornings.",
    productType: "Clothing",
  }),
  product("8205", "Storm Dog Raincoat", "35.00", {
    description: "Hooded coat with reflective trim for wet-weather walks.",
    productType: "Dog clothing",
  }),
  product("8206", "Sisal Scratching Post", "45.00", {
    description: "Tall sisal post on a heavy base; gives claws somewhere better to go than your " +
      "furniture.",
    productType: "Scratchers",
  }),
  product("8207", "Back Seat Hammock Cover", "42.00", {
    description: "Waterproof hammock that covers the car's back seat.",
    productType: "Travel",
  }),
  product("8208", "Ultralight Trail Shoes", "89.00", {
    description: "Light shoes for dry paths.",
    productType: "Footwear",
  }),
  product("8209", "Spring-Tine Rake", "16.00", {
    description: "Wide rake that gathers fallen leaves without tearing up the lawn.",
    productType: "Garden tools",
  }),
);

// A help centre that says "see", "keep" and "need" as a shop's help pages do.
const s = await startShopServer({
  ai,
  shopify,
  helpPage: {
    title: "Your account",
    content: "To reset your password, see the login page; you need the email you signed up with. " +
      "Keep your password safe and never share it. We keep receipts for every payment.",
  },
});

const shown = (message: string) => shownProductNames(s.url, "acme-helper", message);

Deno.test("a need said in plain words finds its product", serverTestOptions, async (t) => {
  await t.step("a word the catalogue never uses is served by its synonym", async () => {
    assertEquals(await shown("anything to protect my couch from the cat?"), ["Pet Sofa Throw"]);
  });

  await t.step("a need said with a help-centre verb is still a shopper's", async () => {
    assertEquals(await shown("I need to see in the dark on unlit roads"), [
      "Beam 800 Front Light",
    ]);
  });

  await t.step("a compound the catalogue uses stands in for its part", async () => {
    // "rains": the catalogue says "raincoat" (and "wet-weather"), never "rain".
    assertEquals(await shown("my dog hates getting soaked when it rains"), [
      "Storm Dog Raincoat",
    ]);
  });

  await t.step("a broader term finds the product; an ambiguous one is not searched", async () => {
    // "wardrobe" is furniture; the post gives claws somewhere better to go than furniture.
    assertEquals(await shown("my cat ruins the wardrobe"), ["Sisal Scratching Post"]);
    // "couch" is also a seat, but "seat" has too many senses: the car seat cover is not shown
    // (the first step shows only the sofa throw); "dark" relates to "light", which this shop
    // uses for "not heavy": not searched either.
    assertOk(!(await shown("what helps me see in the dark?")).includes("Ultralight Trail Shoes"));
  });

  await t.step("a singular finds the plural the catalogue uses", async () => {
    assertEquals(await shown("anything for leaf clearing?"), ["Spring-Tine Rake"]);
  });

  await t.step(
    "a support question naming a price, said with the same verbs, shows none",
    async () => {
      assertEquals(await shown("I need to reset my password, I paid 49 € last week"), []);
      assertEquals(await shown("How do I keep my password safe?"), []);
    },
  );

  await s.stop();
  await ai.close();
  await shopify.close();
});
