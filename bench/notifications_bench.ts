/**
 * Notifications: how many alerts per second reach the local push service
 * (tests/helpers/push_service.ts, which verifies VAPID and decrypts every
 * push), and what raising an alert adds to the request that raised it.
 *
 * Throughput: ALERTS new visitors' first heartbeats each raise a
 * `visitor_arrived` alert for the workspace's three agents, who hold
 * SUBSCRIPTIONS push subscriptions between them; the clock runs from the
 * first heartbeat to the last decrypted push.
 *
 * Request cost: the same first-heartbeat request (a new visitor each time),
 * in pairs of random order between a server whose notifications are on (an
 * alert is queued for every arrival and pushed to one subscription) and a
 * baseline server from the same run with notifications off (no VAPID keys,
 * no SMTP), so both see the same machine load. A pair starts once the
 * previous alert was delivered: what is measured is the request itself.
 *
 * Runs on the database the environment names (DATABASE_URL) or embedded.
 */
import { sealPushKeys } from "../domain/notifications/push_keys.ts";
import webpush from "web-push";
import { startTestServer, type TestServer } from "../tests/helpers/test_server.ts";
import { standardSeed, T } from "../tests/helpers/fixtures.ts";
import { startPushService } from "../tests/helpers/push_service.ts";
import { alertQueue } from "../domain/notifications/alert_from_event.ts";

const ALERTS = Number(Deno.env.get("BENCH_ALERTS") ?? 100);
const SUBSCRIPTIONS = Number(Deno.env.get("BENCH_SUBSCRIPTIONS") ?? 10);
const LATENCY_RUNS = Number(Deno.env.get("BENCH_LATENCY_RUNS") ?? 300);
const SUBSCRIBER_EVENTS = 10_000;
const KEY = "acme-helper";
const AGENT_TOKENS = [T.acme.owner.agent, T.acme.administrator.agent, T.acme.agent.agent];

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

let ip = 1;
async function heartbeat(s: TestServer, visitor: string): Promise<number> {
  const n = ip++;
  const t = performance.now();
  const res = await fetch(`${s.url}/widget/${KEY}/heartbeat`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-forwarded-for": `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
    },
    body: JSON.stringify({ visitor_id: visitor, chat_open: false, page_url: "https://acme.test/" }),
  });
  await res.body?.cancel();
  const ms = performance.now() - t;
  if (res.status !== 200) throw new Error(`heartbeat answered ${res.status}`);
  return ms;
}

async function enableArrivals(s: TestServer): Promise<void> {
  for (const token of AGENT_TOKENS) {
    const res = await fetch(`${s.url}/api/agent/notifications/preferences`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ events: { visitor_arrived: { push: true } } }),
    });
    await res.body?.cancel();
    if (res.status !== 200) throw new Error(`preferences answered ${res.status}`);
  }
}

/** Subscriptions written straight to the table: the route's 20/min limit is not what is measured. */
async function addSubscriptions(
  s: TestServer,
  push: Awaited<ReturnType<typeof startPushService>>,
  count: number,
): Promise<void> {
  const users = await s.deps.sql<{ id: number; workspace_id: number }[]>`
    SELECT id, workspace_id FROM users
     WHERE email IN ('owner@acme.test', 'admin@acme.test', 'agent@acme.test') ORDER BY id`;
  for (let i = 0; i < count; i++) {
    const sub = await push.subscribe();
    const u = users[i % users.length]!;
    await s.deps.sql`
      INSERT INTO push_subscriptions (workspace_id, user_id, endpoint, keys_ciphertext)
      VALUES (${u.workspace_id}, ${u.id}, ${sub.endpoint},
              ${await sealPushKeys(s.deps.appKey, sub.keys)})`;
  }
}

export async function run(): Promise<string> {
  const push = await startPushService();
  const vapid = webpush.generateVAPIDKeys();
  const env = {
    TRUSTED_PROXIES: "127.0.0.1",
    VAPID_PUBLIC_KEY: vapid.publicKey,
    VAPID_PRIVATE_KEY: vapid.privateKey,
    PUSH_ALLOW_HOSTS: push.hostPort,
    PUSH_CA_FILE: push.caFile,
  };
  const backend = Deno.env.get("DATABASE_URL") ? "PostgreSQL" : "embedded PGlite";
  const lines: string[] = [];

  // Throughput.
  const s = await startTestServer({ seed: standardSeed(), env });
  let throughput = "";
  try {
    await enableArrivals(s);
    await addSubscriptions(s, push, SUBSCRIPTIONS);
    const expected = ALERTS * SUBSCRIPTIONS;
    const start = performance.now();
    const before = push.received.length;
    await Promise.all(
      Array.from(
        { length: ALERTS },
        (_, i) => heartbeat(s, `bench-tp-${i}-${crypto.randomUUID()}`),
      ),
    );
    const raised = performance.now() - start;
    const until = Date.now() + 300_000;
    while (push.received.length - before < expected) {
      if (Date.now() > until) {
        throw new Error(`${push.received.length - before} of ${expected} pushes`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    const wall = (performance.now() - start) / 1000;
    throughput = `| ${ALERTS} alerts × ${SUBSCRIPTIONS} subscriptions = ${expected} pushes | ${
      raised.toFixed(0)
    } ms | ${wall.toFixed(2)} s | ${(expected / wall).toFixed(0)} pushes/s (${
      (ALERTS / wall).toFixed(1)
    } alerts/s) |`;
    if (push.rejected.length) throw new Error(`pushes rejected: ${push.rejected[0]!.reason}`);
  } finally {
    await s.stop();
  }

  // Request cost, alternating with a baseline server.
  const on = await startTestServer({ seed: standardSeed(), env });
  const off = await startTestServer({
    seed: standardSeed(),
    env: { TRUSTED_PROXIES: "127.0.0.1", VAPID_GENERATE: "0" },
  });
  try {
    await enableArrivals(on);
    await addSubscriptions(on, push, 1);
    for (let i = 0; i < 20; i++) { // warm-up
      await heartbeat(on, `warm-on-${i}`);
      await heartbeat(off, `warm-off-${i}`);
    }
    const withAlert: number[] = [];
    const baseline: number[] = [];
    const paired: number[] = [];
    for (let i = 0; i < LATENCY_RUNS; i++) {
      // Each pair in random order; the next pair starts once this alert's push
      // arrived, so no background delivery overlaps a measured request.
      const visitor = `lat-on-${i}-${crypto.randomUUID()}`;
      const onFirst = Math.random() < 0.5;
      const off1 = onFirst ? 0 : await heartbeat(off, `lat-off-${i}-${crypto.randomUUID()}`);
      const onMs = await heartbeat(on, visitor);
      const off2 = onFirst ? await heartbeat(off, `lat-off-${i}-${crypto.randomUUID()}`) : 0;
      const offMs = onFirst ? off2 : off1;
      withAlert.push(onMs);
      baseline.push(offMs);
      paired.push(onMs - offMs);
      await push.waitFor((p) => p.payload.url.endsWith(encodeURIComponent(visitor)), 30_000);
    }
    // What the subscriber does on the request's own turn of the event loop.
    const queue = alertQueue(off.deps);
    const t0 = performance.now();
    for (let i = 0; i < SUBSCRIBER_EVENTS; i++) {
      queue.onEvent({
        type: "visitor.seen",
        workspaceId: 1,
        chatbotId: 1,
        visitorId: `micro-${i}`,
        pageUrl: null,
        chatOpen: false,
        arrived: true,
      });
    }
    const subscriberMicros = ((performance.now() - t0) * 1000) / SUBSCRIBER_EVENTS;
    await queue.flush();
    const row = (name: string, xs: number[]) =>
      `| ${name} | ${pct(xs, 0.5).toFixed(2)} ms | ${pct(xs, 0.9).toFixed(2)} ms | ${
        (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(2)
      } ms |`;
    lines.push(
      `### Notifications (${backend})`,
      "",
      "| Throughput | raising (all heartbeats answered) | until the last push decrypted | rate |",
      "|---|---|---|---|",
      throughput,
      "",
      `First heartbeat of a new visitor, ${LATENCY_RUNS} pairs:`,
      "",
      "| Server | p50 | p90 | mean |",
      "|---|---|---|---|",
      row("notifications on (alert queued and pushed)", withAlert),
      row("baseline: notifications off", baseline),
      `| difference (p50 - p50, p90 - p90, mean - mean) | ${
        (pct(withAlert, 0.5) - pct(baseline, 0.5)).toFixed(2)
      } ms | ${(pct(withAlert, 0.9) - pct(baseline, 0.9)).toFixed(2)} ms | ${
        ((withAlert.reduce((a, b) => a + b, 0) - baseline.reduce((a, b) => a + b, 0)) /
          LATENCY_RUNS).toFixed(2)
      } ms |`,
      `| median of the paired differences | ${pct(paired, 0.5).toFixed(2)} ms | | |`,
      "",
      `The bus subscriber's own work per event (noting the alert; the INSERT follows in a batch): ${
        subscriberMicros.toFixed(2)
      } µs, mean of ${SUBSCRIBER_EVENTS} events.`,
    );
  } finally {
    await on.stop();
    await off.stop();
    await push.stop();
  }
  return lines.join("\n");
}

if (import.meta.main) console.log(await run());
