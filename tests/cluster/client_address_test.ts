/**
 * Behind the shipped balancer each client keeps its own address: the real
 * nginx, configured by cli/cluster/nginx_config.ts (which deploy/nginx.conf
 * is), in front of the instances with TRUSTED_PROXIES set to nginx's address.
 * Clients connect from different loopback addresses (127.0.0.2, 127.0.0.3)
 * and never send X-Forwarded-For, except to prove a forged one is ignored.
 * Per-address limits (a widget route's, the login lockout, the socket cap)
 * then count each client alone, and /metrics stays off the public address.
 *
 * On PostgreSQL and Redis: the three-instance cluster of `deno task cluster`.
 * On the embedded default: one in-process instance behind the same nginx.
 */
import type { WebSocket } from "ws";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { T } from "../helpers/fixtures.ts";
import { standardSeed } from "../helpers/fixtures.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { clientAt } from "../helpers/client_at.ts";
import { startTestCluster } from "./cluster_helpers.ts";
import { ensureNginx, startNginx } from "../../cli/cluster/nginx.ts";
import { freePort } from "../../cli/cluster/start_cluster.ts";

const shared = Boolean(Deno.env.get("DATABASE_URL") && Deno.env.get("REDIS_URL"));
const METRICS_TOKEN = "metrics-token-for-the-balancer-test";
const SOCKET_CAP = 20;
const ENV = {
  METRICS_TOKEN,
  REALTIME_MAX_PER_IP: String(SOCKET_CAP),
};

interface Balanced {
  /** The balancer's address, and its port (sockets go through it too). */
  url: string;
  port: number;
  /** One instance's own address (for what only instances serve). */
  instanceUrl: string;
  close(): Promise<void>;
}

/** nginx in front of the instances, as `deno task cluster` and compose run it. */
async function startBalanced(): Promise<Balanced> {
  if (shared) {
    const { cluster, close } = await startTestCluster({ env: ENV });
    return { url: cluster.url, port: cluster.port, instanceUrl: cluster.instances[0]!.url, close };
  }
  const port = freePort();
  const server = await startTestServer({
    seed: standardSeed(),
    env: {
      ...ENV,
      TRUSTED_PROXIES: "127.0.0.1",
      BASE_URL: `http://127.0.0.1:${port}`,
      REALTIME_URL: `ws://127.0.0.1:${port}`,
    },
  });
  try {
    const nginx = await startNginx(
      await ensureNginx(() => {}),
      [{ http: `127.0.0.1:${server.port}`, socket: `127.0.0.1:${server.realtimePort}` }],
      `127.0.0.1:${port}`,
    );
    return {
      url: `http://127.0.0.1:${port}`,
      port,
      instanceUrl: server.url,
      close: async () => {
        await nginx.stop();
        await server.stop();
      },
    };
  } catch (err) {
    await server.stop();
    throw err;
  }
}

Deno.test({
  name: "behind the shipped nginx each client keeps its own address",
  ...serverTestOptions,
  fn: async (t) => {
    const lb = await startBalanced();
    const a = clientAt("127.0.0.2");
    const b = clientAt("127.0.0.3");
    const sockets: WebSocket[] = [];
    try {
      await t.step("a widget route's limit counts each client alone", async () => {
        const config = `${lb.url}/widget/acme-helper/config`;
        const statuses = [];
        for (let i = 0; i < 61; i++) statuses.push(await a.request(config));
        assertEquals(statuses.filter((s) => s === 200).length, 60);
        assertEquals(statuses.at(-1), 429);
        assertEquals(await b.request(config), 200, "another client is not limited");
      });

      await t.step("a forged X-Forwarded-For does not make a client someone else", async () => {
        const config = `${lb.url}/widget/acme-helper/config`;
        const forged = await a.request(config, { headers: { "x-forwarded-for": "203.0.113.9" } });
        assertEquals(forged, 429);
      });

      await t.step("the login lockout locks out only the client that guessed", async () => {
        const login = (c: typeof a, password: string) =>
          c.request(`${lb.url}/api/agent/login`, {
            method: "POST",
            body: { email: "admin@acme.test", password },
          });
        const wrong = [];
        for (let i = 0; i < 5; i++) wrong.push(await login(a, "not the password"));
        assertEquals(wrong, [401, 401, 401, 401, 401]);
        assertEquals(await login(a, "correct horse battery staple"), 429);
        assertEquals(await login(b, "correct horse battery staple"), 200);
      });

      await t.step("the socket cap counts each client's sockets, not the balancer's", async () => {
        const half = SOCKET_CAP - 5;
        const opened = await Promise.all(
          [...Array(half)].flatMap(() => [a.socket(lb.port), b.socket(lb.port)]),
        );
        sockets.push(...opened.map((o) => o.ws));
        assertEquals(opened.filter((o) => o.outcome === "established").length, 2 * half);
        // The cap still holds for one client: its (cap + 1)th socket is refused.
        for (let i = half; i < SOCKET_CAP; i++) {
          const more = await a.socket(lb.port);
          sockets.push(more.ws);
          assertEquals(more.outcome, "established");
        }
        const over = await a.socket(lb.port);
        sockets.push(over.ws);
        assertEquals(over.outcome, 4101);
      });

      await t.step("/metrics is served by each instance, not by the balancer", async () => {
        const auth = { authorization: `Bearer ${METRICS_TOKEN}` };
        assertEquals(await a.request(`${lb.url}/metrics`, { headers: auth }), 404);
        assertEquals(await a.request(`${lb.instanceUrl}/metrics`, { headers: auth }), 200);
        // Everything else still passes: an authenticated API call through the balancer.
        assertOk(
          (await b.request(`${lb.url}/api/agent/me`, {
            headers: { authorization: `Bearer ${T.acme.agent.agent}` },
          })) === 200,
          "an API call through the balancer",
        );
      });
    } finally {
      for (const ws of sockets) ws.terminate();
      a.close();
      b.close();
      await lb.close();
    }
  },
});
