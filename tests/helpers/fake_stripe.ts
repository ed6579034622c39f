/**
 * A small Stripe API for tests: `GET /v1/customers?email=` and `GET
 * /v1/subscriptions?customer=&status=all` (with `expand[]` of the price's
 * product) in Stripe's list shape, `GET /v1/account`, Bearer secret-key auth
 * with Stripe's 401 error body, a restricted key's 403 on the paths it may
 * not read, and a failing or hanging mode.
 */

export interface FakeStripeCustomer {
  id: string;
  email: string;
  name: string | null;
  subscriptions: {
    id: string;
    status: string;
    cancel_at_period_end: boolean;
    product: string;
    nickname: string | null;
    unit_amount: number;
    currency: string;
    interval: string;
    current_period_end: number;
    quantity?: number;
  }[];
}

export interface FakeStripe {
  baseUrl: string;
  hostPort: string;
  secretKey: string;
  mode: "ok" | "server_error" | "hang";
  customers: FakeStripeCustomer[];
  /** What `GET /v1/account` answers. */
  account: { id: string; name: string; country: string; default_currency: string };
  /** Paths the key may not read (a restricted key): 403 with Stripe's permission error. */
  forbidden: string[];
  requests: { path: string; search: URLSearchParams; authorization: string | null }[];
  close(): Promise<void>;
}

const list = (url: string, data: unknown[]) => ({ object: "list", data, has_more: false, url });

export function startFakeStripe(secretKey = "sk_test_fake_secret_9876"): FakeStripe {
  const ac = new AbortController();
  const state = {
    secretKey,
    mode: "ok" as FakeStripe["mode"],
    customers: [] as FakeStripeCustomer[],
    account: {
      id: "acct_1FakeAcme",
      name: "Acme Ltd",
      country: "DE",
      default_currency: "eur",
    },
    forbidden: [] as string[],
    requests: [] as FakeStripe["requests"],
  };
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: ac.signal, onListen: () => {} },
    async (req) => {
      const url = new URL(req.url);
      const authorization = req.headers.get("authorization");
      state.requests.push({ path: url.pathname, search: url.searchParams, authorization });
      if (state.mode === "hang") {
        await new Promise((r) => setTimeout(r, 30_000));
        return new Response("late");
      }
      if (state.mode === "server_error") {
        return Response.json({
          error: { message: "An unknown error occurred", type: "api_error" },
        }, { status: 500 });
      }
      if (authorization !== `Bearer ${state.secretKey}`) {
        return Response.json({
          error: {
            message: "Invalid API Key provided: sk_test_****",
            type: "invalid_request_error",
          },
        }, { status: 401 });
      }
      if (state.forbidden.includes(url.pathname)) {
        return Response.json({
          error: {
            message: `The provided key 'rk_test_****' does not have the required permissions ` +
              `for this endpoint on account '${state.account.id}'.`,
            type: "invalid_request_error",
          },
        }, { status: 403 });
      }
      if (req.method === "GET" && url.pathname === "/v1/account") {
        const a = state.account;
        return Response.json({
          id: a.id,
          object: "account",
          business_profile: { name: a.name },
          settings: { dashboard: { display_name: a.name } },
          country: a.country,
          default_currency: a.default_currency,
          email: "billing@acme.test",
        });
      }
      if (req.method === "GET" && url.pathname === "/v1/customers") {
        const email = url.searchParams.get("email");
        const limit = Number(url.searchParams.get("limit") ?? 10);
        const found = state.customers.filter((c) => !email || c.email === email).slice(0, limit);
        return Response.json(list("/v1/customers", found.map(customerObject)));
      }
      if (req.method === "GET" && url.pathname === "/v1/subscriptions") {
        const customer = state.customers.find((c) => c.id === url.searchParams.get("customer"));
        // Stripe's clients send `expand[0]=...`; `expand[]=...` is accepted as well.
        const expand = [...url.searchParams].filter(([k]) => /^expand\[\d*\]$/.test(k))
          .map(([, v]) => v);
        const expanded = expand.includes("data.items.data.price.product");
        return Response.json(list(
          "/v1/subscriptions",
          (customer?.subscriptions ?? []).map((s) => subscriptionObject(customer!, s, expanded)),
        ));
      }
      return Response.json({
        error: { message: `Unrecognized request URL (${req.method}: ${url.pathname}).` },
      }, { status: 404 });
    },
  );
  const port = (server.addr as Deno.NetAddr).port;
  const fake = state as unknown as FakeStripe;
  fake.baseUrl = `http://127.0.0.1:${port}`;
  fake.hostPort = `127.0.0.1:${port}`;
  fake.close = async () => {
    ac.abort();
    await server.finished.catch(() => {});
  };
  return fake;
}

function customerObject(c: FakeStripeCustomer) {
  return {
    id: c.id,
    object: "customer",
    email: c.email,
    name: c.name,
    created: 1700000000,
    livemode: false,
    metadata: {},
  };
}

function subscriptionObject(
  c: FakeStripeCustomer,
  s: FakeStripeCustomer["subscriptions"][number],
  expanded: boolean,
) {
  const productId = `prod_${s.id}`;
  return {
    id: s.id,
    object: "subscription",
    customer: c.id,
    status: s.status,
    cancel_at_period_end: s.cancel_at_period_end,
    currency: s.currency,
    livemode: false,
    metadata: {},
    items: list(`/v1/subscription_items?subscription=${s.id}`, [{
      id: `si_${s.id}`,
      object: "subscription_item",
      current_period_end: s.current_period_end,
      current_period_start: s.current_period_end - 30 * 86400,
      quantity: s.quantity ?? 1,
      price: {
        id: `price_${s.id}`,
        object: "price",
        currency: s.currency,
        unit_amount: s.unit_amount,
        nickname: s.nickname,
        recurring: { interval: s.interval, interval_count: 1 },
        product: expanded ? { id: productId, object: "product", name: s.product } : productId,
      },
    }]),
  };
}
