/**
 * A linked Shopify store's catalogue through the official Admin API client
 * (GraphQL): active products published to the online store, page by page
 * (cursor pagination), each with its price, main image, online-store URL, a
 * cart permalink of its first variant for sale (`buy_url`), and availability
 * from inventory. Failures throw; the sync job retries.
 */
import { createAdminApiClient } from "@shopify/admin-api-client";
import { SHOPIFY_API_VERSION } from "../customer_context/shopify_orders.ts";
import { guardedFetch, type GuardOptions } from "../customer_context/guarded_fetch.ts";
import { minorUnitDigits } from "../money.ts";
import type { NewCatalogueProduct } from "../../db/catalogue.ts";

/** Products per page: Shopify allows 250; 100 keeps each query's cost well under its limit. */
const PAGE_SIZE = 100;
/** A stop for a runaway store (or a cursor that never ends): 200 pages of 100. */
const MAX_PAGES = 200;
/** Description text kept per product: enough to choose and to describe it. */
const DESCRIPTION_CHARS = 600;

const PRODUCTS_QUERY = `query CatalogueProducts($first: Int!, $after: String) {
  products(first: $first, after: $after, query: "status:active", sortKey: ID) {
    pageInfo { hasNextPage endCursor }
    nodes {
      id
      title
      description
      productType
      vendor
      tags
      onlineStoreUrl
      tracksInventory
      totalInventory
      featuredMedia { preview { image { url } } }
      priceRangeV2 { minVariantPrice { amount currencyCode } }
      variants(first: 10) { nodes { legacyResourceId availableForSale inventoryQuantity } }
    }
  }
}`;

interface ProductNode {
  id: string;
  title: string;
  description: string | null;
  productType: string | null;
  vendor: string | null;
  tags: string[] | null;
  onlineStoreUrl: string | null;
  tracksInventory: boolean;
  totalInventory: number | null;
  featuredMedia: { preview: { image: { url: string } | null } | null } | null;
  priceRangeV2: { minVariantPrice: { amount: string; currencyCode: string } };
  variants: {
    nodes: {
      legacyResourceId: string;
      availableForSale: boolean;
      inventoryQuantity: number | null;
    }[];
  };
}

interface ProductsPage {
  products: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: ProductNode[] };
}

export async function fetchShopifyProducts(
  shop: { domain: string; accessToken: string },
  guard: GuardOptions,
  signal?: AbortSignal,
): Promise<NewCatalogueProduct[]> {
  const client = createAdminApiClient({
    storeDomain: shop.domain,
    apiVersion: SHOPIFY_API_VERSION,
    accessToken: shop.accessToken,
    customFetchApi: guardedFetch(guard),
  });
  const out: NewCatalogueProduct[] = [];
  let after: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    signal?.throwIfAborted();
    const res: { data?: ProductsPage; errors?: { message?: string } } = await client.request<
      ProductsPage
    >(PRODUCTS_QUERY, {
      variables: { first: PAGE_SIZE, after },
      signal,
    });
    if (res.errors || !res.data) {
      throw new Error(`Shopify answered with an error: ${res.errors?.message ?? "no data"}`);
    }
    for (const node of res.data.products.nodes) {
      const product = toProduct(node, shop.domain);
      if (product) out.push(product);
    }
    const info: { hasNextPage: boolean; endCursor: string | null } = res.data.products.pageInfo;
    if (!info.hasNextPage || !info.endCursor) break;
    after = info.endCursor;
  }
  return out;
}

/** One product as stored, or null when visitors cannot reach it (not on the online store). */
function toProduct(node: ProductNode, shopDomain: string): NewCatalogueProduct | null {
  if (!node.onlineStoreUrl) return null;
  const price = node.priceRangeV2.minVariantPrice;
  const forSale = node.variants.nodes.filter((v) => v.availableForSale);
  // Inventory decides when the store tracks it; otherwise whether a variant can be bought.
  const inStock = forSale.length > 0 &&
    (!node.tracksInventory || (node.totalInventory ?? 0) > 0);
  const variant = forSale.find((v) => (v.inventoryQuantity ?? 1) > 0) ?? forSale[0] ??
    node.variants.nodes[0];
  const storeOrigin = new URL(node.onlineStoreUrl).origin;
  // Shopify's cart permalink: the variant in the cart, straight to checkout.
  const buyUrl = variant
    ? `${storeOrigin}/cart/${encodeURIComponent(variant.legacyResourceId)}:1`
    : node.onlineStoreUrl;
  const description = (node.description ?? "").replace(/\s+/g, " ").trim();
  const digits = minorUnitDigits(price.currencyCode);
  return {
    product_id: node.id,
    name: node.title.trim() || node.id,
    description: description.length > DESCRIPTION_CHARS
      ? `${description.slice(0, DESCRIPTION_CHARS - 1).trimEnd()}…`
      : description,
    price_minor: Math.round(Number(price.amount) * 10 ** digits),
    currency: price.currencyCode.toUpperCase(),
    url: node.onlineStoreUrl,
    buy_url: buyUrl || `https://${shopDomain}`,
    image_url: node.featuredMedia?.preview?.image?.url ?? null,
    in_stock: inStock,
    searchText: [
      description,
      node.productType ?? "",
      node.vendor ?? "",
      (node.tags ?? []).join(", "),
    ].filter(Boolean).join("\n"),
  };
}
