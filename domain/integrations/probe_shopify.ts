/**
 * "Test connection" for a storefront: one Admin API query through the same
 * official client and guard as customer context and the catalogue, asking
 * the store's name, domain and currency and the scopes the token was
 * granted. Each failure is named: a redirect (a public domain, not the
 * myshopify.com one), a refused token (401), an unknown shop (404), a frozen
 * store (402), Shopify's own trouble (5xx), no answer.
 */
import { createAdminApiClient } from "@shopify/admin-api-client";
import { SHOPIFY_API_VERSION } from "../customer_context/shopify_orders.ts";
import { guardedFetch, type GuardOptions } from "../customer_context/guarded_fetch.ts";
import { type ConnectionCheck, failed, noAnswer } from "./connection_check.ts";

const QUERY = `query ConnectionTest {
  shop { name myshopifyDomain currencyCode }
  currentAppInstallation { accessScopes { handle } }
}`;

interface Answer {
  shop: { name: string; myshopifyDomain: string; currencyCode: string };
  currentAppInstallation: { accessScopes: { handle: string }[] } | null;
}

/** The scopes our features read with, and what is lost without each. */
const NEEDED: [scope: string, without: string][] = [
  ["read_orders", "agents will see no orders in customer context"],
  ["read_products", "the product catalogue cannot be synced, so bots recommend no products"],
];

export async function probeShopify(
  shop: { domain: string; accessToken: string },
  guard: GuardOptions,
): Promise<ConnectionCheck> {
  let thrown: unknown = null;
  const client = createAdminApiClient({
    storeDomain: shop.domain,
    apiVersion: SHOPIFY_API_VERSION,
    accessToken: shop.accessToken,
    customFetchApi: guardedFetch({ ...guard, onFailure: (err) => (thrown = err) }),
  });
  const res = await client.request<Answer>(QUERY).catch((err) => ({
    data: undefined,
    errors: { message: String(err), networkStatusCode: undefined, graphQLErrors: undefined },
  }));
  if (thrown) return failed(noAnswer(shop.domain, thrown, guard.timeoutMs));
  const status = res.errors?.networkStatusCode;
  if (status && status >= 300) return failed(refusal(shop.domain, status));
  const gqlError = res.errors?.graphQLErrors?.[0]?.message;
  if (res.errors || !res.data?.shop) {
    return failed(
      `Shopify answered with an error: ${gqlError ?? res.errors?.message ?? "no data"}`,
    );
  }
  const found = res.data.shop;
  const granted = new Set(res.data.currentAppInstallation?.accessScopes.map((s) => s.handle));
  // A write scope includes its read scope.
  const warnings = NEEDED
    .filter(([scope]) => !granted.has(scope) && !granted.has(scope.replace(/^read_/, "write_")))
    .map(([scope, without]) => `The token lacks the ${scope} scope: ${without}.`);
  return {
    ok: true,
    message: `Connected to the Shopify store “${found.name}” (${found.myshopifyDomain}).`,
    found: {
      name: found.name,
      account: found.myshopifyDomain,
      mode: null,
      currency: found.currencyCode,
    },
    warnings,
  };
}

function refusal(domain: string, status: number): string {
  if (status < 400) {
    // Redirects are not followed (guarded_fetch): a store's public domain redirects.
    return `${domain} redirects elsewhere (${status}): use the store's myshopify.com domain, ` +
      "not its public one.";
  }
  switch (status) {
    case 401:
      return "Shopify refused the access token (401). Use the Admin API access token " +
        `(shpat_…) of an app installed on ${domain}.`;
    case 402:
      return `The store ${domain} is frozen (402): Shopify answers again once its bill is paid.`;
    case 403:
      return `Shopify refused access to ${domain} (403): the token's app may not use the Admin API here.`;
    case 404:
      return `No Shopify store answers at ${domain} (404). Use the store's myshopify.com domain.`;
    case 423:
      return `The store ${domain} is locked (423).`;
    case 429:
      return "Shopify is limiting this app's requests (429): try again in a minute.";
    default:
      return status >= 500
        ? `Shopify answered ${status}: its service failed; try again in a moment.`
        : `Shopify answered ${status}.`;
  }
}
