/**
 * A question asking for the cheapest or the dearest of something ("what's the
 * cheapest stapler you've got?", "your most expensive guitar"): the products
 * shown are then the one at that end of the price range among those that
 * answer it, not the three most relevant at any price.
 */
export type PriceOrder = "cheapest" | "priciest";

const CHEAPEST =
  /(?<![\p{L}])(?:cheapest|least\s+expensive|lowest[-\s]+pric(?:e|ed)|most\s+affordable)(?![\p{L}])/iu;
const PRICIEST =
  /(?<![\p{L}])(?:most\s+expensive|priciest|highest[-\s]+pric(?:e|ed)|top\s+of\s+the\s+range)(?![\p{L}])/iu;

export function priceOrderOf(query: string): PriceOrder | null {
  if (CHEAPEST.test(query)) return "cheapest";
  if (PRICIEST.test(query)) return "priciest";
  return null;
}
