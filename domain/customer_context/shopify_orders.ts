/**
 * The storefront side of customer context: a linked Shopify store's orders
 * for the visitor's e-mail, newest first, through the official Admin API
 * client (GraphQL). Failures throw; the caller degrades.
 */
import { createAdminApiClient } from "@shopify/admin-api-client";
import { formatMinorUnits, minorUnitDigits } from "../money.ts";
import { guardedFetch, type GuardOptions } from "./guarded_fetch.ts";

/**
 * The Admin API version we speak: a stable quarterly release, supported by Shopify for twelve
 * months. Move it on every few quarters (the client warns on each call once it falls out).
 */
export const SHOPIFY_API_VERSION = "2026-10";
/** Orders shown to the agent: the recent ones are what a support question is about. */
const ORDERS_SHOWN = 10;

export interface StorefrontOrder {
  name: string;
  total: string;
  financial_status: string | null;
  fulfillment_status: string | null;
  created_at: string;
  url: string;
}

const ORDERS_QUERY = `query CustomerOrders($query: String!, $first: Int!) {
  orders(first: $first, query: $query, sortKey: CREATED_AT, reverse: true) {
    nodes {
      legacyResourceId
      name
      createdAt
      displayFinancialStatus
      displayFulfillmentStatus
      totalPriceSet { shopMoney { amount currencyCode } }
    }
  }
}`;

interface OrderNode {
  legacyResourceId: string;
  name: string;
  createdAt: string;
  displayFinancialStatus: string | null;
  displayFulfillmentStatus: string | null;
  totalPriceSet: { shopMoney: { amount: string; currencyCode: string } };
}

export async function fetchShopifyOrders(
  shop: { domain: string; accessToken: string },
  email: string,
  guard: GuardOptions,
): Promise<StorefrontOrder[]> {
  const client = createAdminApiClient({
    storeDomain: shop.domain,
    apiVersion: SHOPIFY_API_VERSION,
    accessToken: shop.accessToken,
    customFetchApi: guardedFetch(guard),
  });
  // Shopify's search syntax: a quoted value, so the address is one term.
  const query = `email:"${email.replace(/["\\]/g, "")}"`;
  const res = await client.request<{ orders: { nodes: OrderNode[] } }>(ORDERS_QUERY, {
    variables: { query, first: ORDERS_SHOWN },
  });
  if (res.errors || !res.data) {
    throw new Error(`Shopify answered with an error: ${res.errors?.message ?? "no data"}`);
  }
  return res.data.orders.nodes.map((o) => ({
    name: o.name,
    total: money(o.totalPriceSet.shopMoney.amount, o.totalPriceSet.shopMoney.currencyCode),
    financial_status: o.displayFinancialStatus?.toLowerCase() ?? null,
    fulfillment_status: o.displayFulfillmentStatus?.toLowerCase() ?? null,
    created_at: new Date(o.createdAt).toISOString(),
    url: `https://${shop.domain}/admin/orders/${o.legacyResourceId}`,
  }));
}

/** Shopify's decimal string ("49.9") as "49.90 EUR". */
function money(amount: string, currency: string): string {
  const minor = Math.round(Number(amount) * 10 ** minorUnitDigits(currency));
  return formatMinorUnits(minor, currency);
}
