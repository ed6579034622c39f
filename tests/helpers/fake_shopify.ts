/**
 * A small Shopify Admin API (GraphQL) for tests: `POST
 * /admin/api/{version}/graphql.json` with `X-Shopify-Access-Token`, answering
 * the `orders(query: "email:...")` connection in Shopify's shape (`nodes`,
 * `totalPriceSet.shopMoney`, display statuses in upper case), the
 * `products(first, after)` connection with cursor pagination (`pageInfo`,
 * opaque cursors, at most `first` per page), the `shop` and
 * `currentAppInstallation.accessScopes` a connection test asks, a 401 with
 * Shopify's error body for a wrong token, and a failing or hanging mode.
 */

export interface FakeProduct {
  /** Numeric part of the GID `gid://shopify/Product/{id}`. */
  id: string;
  title: string;
  description: string;
  productType?: string;
  vendor?: string;
  tags?: string[];
  handle: string;
  price: string;
  currencyCode: string;
  imageUrl: string | null;
  tracksInventory: boolean;
  totalInventory: number;
  variantId: string;
  /** false: not published to the online store (no onlineStoreUrl). */
  published?: boolean;
}

export interface FakeOrder {
  email: string;
  legacyResourceId: string;
  name: string;
  createdAt: string;
  displayFinancialStatus: string;
  displayFulfillmentStatus: string;
  amount: string;
  currencyCode: string;
}

export interface ShopifyRequestRecord {
  path: string;
  token: string | null;
  query: string;
  variables: Record<string, unknown>;
}

export interface FakeShopify {
  baseUrl: string;
  /** host:port, for CRAWL_ALLOW_HOSTS. */
  hostPort: string;
  accessToken: string;
  /** `redirect`: a 301 to the storefront, as a shop's public domain answers. */
  mode: "ok" | "server_error" | "hang" | "redirect";
  orders: FakeOrder[];
  products: FakeProduct[];
  /** Other stores behind the same origin, by access token: their products. */
  otherStores: Record<string, FakeProduct[]>;
  /** What `shop { name myshopifyDomain currencyCode }` answers. */
  shop: { name: string; myshopifyDomain: string; currencyCode: string };
  /** The access scopes granted to the token (`currentAppInstallation.accessScopes`). */
  scopes: string[];
  requests: ShopifyRequestRecord[];
  close(): Promise<void>;
}

export function startFakeShopify(accessToken = "shpat_fake_token_1234"): FakeShopify {
  const ac = new AbortController();
  const state = {
    accessToken,
    mode: "ok" as FakeShopify["mode"],
    orders: [] as FakeOrder[],
    products: [] as FakeProduct[],
    otherStores: {} as Record<string, FakeProduct[]>,
    shop: { name: "Acme Store", myshopifyDomain: "acme-store.myshopify.com", currencyCode: "EUR" },
    scopes: ["read_orders", "read_products", "read_customers"],
    requests: [] as ShopifyRequestRecord[],
  };
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: ac.signal, onListen: () => {} },
    async (req) => {
      const url = new URL(req.url);
      if (req.method !== "POST" || !/^\/admin\/api\/[\w-]+\/graphql\.json$/.test(url.pathname)) {
        return Response.json({ errors: "Not Found" }, { status: 404 });
      }
      const body = await req.json().catch(() => ({}));
      const token = req.headers.get("x-shopify-access-token");
      state.requests.push({
        path: url.pathname,
        token,
        query: body.query ?? "",
        variables: body.variables ?? {},
      });
      if (state.mode === "hang") {
        await new Promise((r) => setTimeout(r, 30_000));
        return new Response("late");
      }
      if (state.mode === "redirect") {
        return new Response(null, {
          status: 301,
          headers: { location: "https://shop.example.com/" },
        });
      }
      if (state.mode === "server_error") {
        return Response.json({ errors: "Internal Server Error" }, { status: 500 });
      }
      const other = token ? state.otherStores[token] : undefined;
      if (token !== state.accessToken && !other) {
        return Response.json({
          errors: "[API] Invalid API key or access token (unrecognized login or wrong password)",
        }, { status: 401 });
      }
      if (/\bshop\s*\{/.test(String(body.query ?? ""))) {
        return Response.json({
          data: {
            shop: state.shop,
            currentAppInstallation: {
              accessScopes: state.scopes.map((handle) => ({ handle })),
            },
          },
        });
      }
      if (/\bproducts\s*\(/.test(String(body.query ?? ""))) {
        const products = other ?? state.products;
        return Response.json({ data: { products: productsPage(products, body.variables) } });
      }
      // Shopify's search syntax as our client sends it: email:"address".
      const wanted = /email:"?([^"\s]+)"?/.exec(String(body.variables?.query ?? ""))?.[1];
      const first = Number(body.variables?.first ?? 50);
      const nodes = state.orders
        .filter((o) => wanted && o.email.toLowerCase() === wanted.toLowerCase())
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
        .slice(0, first)
        .map((o) => ({
          legacyResourceId: o.legacyResourceId,
          name: o.name,
          createdAt: o.createdAt,
          displayFinancialStatus: o.displayFinancialStatus,
          displayFulfillmentStatus: o.displayFulfillmentStatus,
          totalPriceSet: { shopMoney: { amount: o.amount, currencyCode: o.currencyCode } },
        }));
      return Response.json({
        data: { orders: { nodes } },
        extensions: {
          cost: {
            requestedQueryCost: 12,
            actualQueryCost: 4,
            throttleStatus: { maximumAvailable: 2000, currentlyAvailable: 1996, restoreRate: 100 },
          },
        },
      });
    },
  );
  const port = (server.addr as Deno.NetAddr).port;
  const fake = state as unknown as FakeShopify;
  fake.baseUrl = `http://127.0.0.1:${port}`;
  fake.hostPort = `127.0.0.1:${port}`;
  fake.close = async () => {
    ac.abort();
    await server.finished.catch(() => {});
  };
  return fake;
}

/** One page of the products connection, in Shopify's shape; cursors are opaque base64. */
function productsPage(all: FakeProduct[], vars: Record<string, unknown> | undefined) {
  const first = Math.min(250, Number(vars?.first ?? 50));
  const after = typeof vars?.after === "string" ? Number(atob(vars.after)) : -1;
  const start = after + 1;
  const page = all.slice(start, start + first);
  const nodes = page.map((p) => {
    const available = !p.tracksInventory || p.totalInventory > 0;
    return {
      id: `gid://shopify/Product/${p.id}`,
      title: p.title,
      description: p.description,
      productType: p.productType ?? "",
      vendor: p.vendor ?? "Acme",
      tags: p.tags ?? [],
      onlineStoreUrl: p.published === false
        ? null
        : `https://shop.example.com/products/${p.handle}`,
      tracksInventory: p.tracksInventory,
      totalInventory: p.totalInventory,
      featuredMedia: p.imageUrl ? { preview: { image: { url: p.imageUrl } } } : null,
      priceRangeV2: { minVariantPrice: { amount: p.price, currencyCode: p.currencyCode } },
      variants: {
        nodes: [{
          legacyResourceId: p.variantId,
          availableForSale: available,
          inventoryQuantity: p.totalInventory,
        }],
      },
    };
  });
  const last = start + page.length - 1;
  return {
    pageInfo: {
      hasNextPage: start + page.length < all.length,
      endCursor: page.length ? btoa(String(last)) : null,
    },
    nodes,
  };
}
