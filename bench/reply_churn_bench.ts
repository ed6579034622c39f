/**
 * Replies that slowed with uptime (issue 44): an agent's reply → its
 * `message.created` on a socket, and the reply statement alone
 * (db/messages.ts `appendMessageWhile`), measured at start and after
 * BENCH_CHURN_SECONDS (default 90) of soak-like writes at full speed (widget
 * streams, agent replies, heartbeats), on one in-process server.
 *
 * Two passes on PostgreSQL (embedded with BENCH_CHURN_EMBEDDED=1):
 * - table maintenance off: after the churn, then after one `ANALYZE` alone
 *   (no VACUUM), then after a `VACUUM` too: what each brings back;
 * - maintenance on (DB_MAINTENANCE=on, every 5 s): after one churn and after a second.
 *
 *   deno task bench reply_churn
 */
import { startFakeAi } from "../tests/helpers/fake_ai.ts";
import { standardSeed } from "../tests/helpers/fixtures.ts";
import { startTestServer, type TestServer } from "../tests/helpers/test_server.ts";
import { pusherClient } from "../tests/realtime/pusher_helpers.ts";
import { freshIp, postStream, WIDGET_ENV } from "../tests/widget/widget_client.ts";
import { appendMessageWhile } from "../db/messages.ts";
import { agentReplyFixedPoint } from "../domain/conversations/state_machine.ts";
import { percentile, realPostgresUrl, withDatabase } from "./support.ts";
import { AGENT, reply, startConversation, watchReplies } from "./agent_replies.ts";

const CHURN_SECONDS = Number(Deno.env.get("BENCH_CHURN_SECONDS") ?? "90");
const SAMPLES = 120;

/** Soak-like writes for `seconds`: two stream loops, a reply loop, 20 heartbeats every 200 ms. */
async function churn(s: TestServer, growing: string, seconds: number): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let n = 0;
  const streams = async () => {
    while (performance.now() < until) {
      await postStream(s.url, "acme-helper", {
        visitor_id: `v_churn_${n++ % 500}`,
        message: `Question ${n}`,
      }, freshIp());
    }
  };
  const replies = async () => {
    while (performance.now() < until) {
      await (await reply(s, growing, `churn ${n++} ${Math.random()}`)).arrayBuffer();
    }
  };
  const beats = async () => {
    while (performance.now() < until) {
      await Promise.all(Array.from({ length: 20 }, async (_, i) => {
        n++;
        const res = await fetch(`${s.url}/widget/acme-helper/heartbeat`, {
          method: "POST",
          headers: { "content-type": "application/json", ...freshIp() },
          body: JSON.stringify({
            visitor_id: `v_beat_${i}`,
            page_url: `https://shop.example/p${i}`,
            chat_open: false,
          }),
        });
        await res.arrayBuffer();
      }));
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  await Promise.all([streams(), streams(), replies(), beats()]);
  return n;
}

async function pass(label: string, maintenance: "on" | "off", kind: string): Promise<string[]> {
  const ai = startFakeAi({ reply: "Happy to help." });
  const s = await startTestServer({
    seed: standardSeed({ monthlyLimit: 100_000_000 }),
    env: {
      ...WIDGET_ENV,
      AI_BASE_URL: ai.baseUrl,
      LOG_LEVEL: "error",
      DB_MAINTENANCE: maintenance,
      DB_MAINTENANCE_SECONDS: "5",
    },
  });
  const watcher = pusherClient(s, { token: AGENT });
  const rows: string[] = [];
  try {
    const { me, heard } = await watchReplies(s, watcher);
    const growing = await startConversation(s, "v_growing");
    await (await reply(s, growing, "first")).arrayBuffer();
    let round = 0;
    const measure = async (moment: string) => {
      const fresh = await startConversation(s, `v_fresh_${++round}`);
      await (await reply(s, fresh, `first ${round}`)).arrayBuffer();
      const event: number[] = [];
      const statement: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        const body = `${label} ${round} ${i}`;
        const arrived = heard(body);
        const t0 = performance.now();
        const res = await reply(s, i % 2 ? fresh : growing, body);
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`reply ${res.status}`);
        event.push((await arrived) - t0);
        const t1 = performance.now();
        await appendMessageWhile(
          s.deps.sql,
          me.company.id,
          fresh,
          agentReplyFixedPoint(me.id),
          me.id,
          {
            role: "agent",
            content: "measured statement",
            authorUserId: me.id,
            clientId: `statement ${round} ${i}`,
            now: new Date(),
          },
        );
        statement.push(performance.now() - t1);
      }
      const [db] = await s.deps.sql<{ dead: number; live: number }[]>`
        SELECT sum(n_dead_tup)::float8 AS dead, sum(n_live_tup)::float8 AS live
          FROM pg_stat_user_tables`;
      const load = (await Deno.readTextFile("/proc/loadavg")).split(" ")[0];
      const p = (v: number[], q: number) => percentile(v.slice(20), q).toFixed(2);
      const row = `| ${kind} | ${label} | ${moment} | ${p(event, 0.5)} / ${p(event, 0.9)} | ${
        p(statement, 0.5)
      } | ${db!.live} / ${db!.dead} | ${load} |`;
      console.error(row);
      rows.push(row);
    };
    await measure("start");
    await churn(s, growing, CHURN_SECONDS);
    await measure(`after ${CHURN_SECONDS} s of churn`);
    if (maintenance === "off") {
      await s.deps.sql`ANALYZE`;
      await measure("after one ANALYZE (no VACUUM)");
      await s.deps.sql`VACUUM`;
      await measure("after a VACUUM too");
    } else {
      await churn(s, growing, CHURN_SECONDS);
      await measure(`after ${2 * CHURN_SECONDS} s of churn`);
    }
  } finally {
    watcher.disconnect();
    await s.stop();
    await ai.close();
  }
  return rows;
}

export async function run(): Promise<string> {
  const rows: string[] = [];
  const pg = await realPostgresUrl();
  const backends: [string | null, string][] = [];
  if (pg) backends.push([pg, "PostgreSQL"]);
  if (!pg || Deno.env.get("BENCH_CHURN_EMBEDDED")) backends.push([null, "embedded"]);
  for (const [url, kind] of backends) {
    rows.push(...await withDatabase(url, () => pass("maintenance off", "off", kind)));
    rows.push(...await withDatabase(url, () => pass("maintenance on", "on", kind)));
  }
  return [
    "## Replies that slowed with uptime (issue 44)",
    "",
    `${SAMPLES} replies per moment (the first 20 unmeasured), alternating between a conversation ` +
    "that grows all run and one started for the moment; then the reply statement alone.",
    "",
    "| Database | Pass | Moment | reply → event p50 / p90 (ms) | reply statement p50 (ms) | live / dead rows | load |",
    "|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}

if (import.meta.main) console.log(await run());
