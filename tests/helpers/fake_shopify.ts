/**
 * A small Shopify Admin API (GraphQL) for tests: `POST
 * /admin/api/{version}/graphql.json` with `X-Shopify-Access-Token`, answering
 * the `orders(query: "email:...")` connection in Shopify's shape (`nodes`,
 * `totalPriceSet.shopMoney`, display statuses in upper case), a 401 with
 * Shopify's error body for a wrong token, and a failing or hanging mode.
 */

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
  mode: "ok" | "server_error" | "hang";
  orders: FakeOrder[];
  requests: ShopifyRequestRecord[];
  close(): Promise<void>;
}

export function startFakeShopify(accessToken = "shpat_fake_token_1234"): FakeShopify {
  const ac = new AbortController();
  const state = {
    accessToken,
    mode: "ok" as FakeShopify["mode"],
    orders: [] as FakeOrder[],
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
      if (state.mode === "server_error") {
        return Response.json({ errors: "Internal Server Error" }, { status: 500 });
      }
      if (token !== state.accessToken) {
        return Response.json({
          errors: "[API] Invalid API key or access token (unrecognized login or wrong password)",
        }, { status: 401 });
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
