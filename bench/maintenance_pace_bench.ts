/**
 * What table maintenance costs the requests beside it (issue 44), on
 * PostgreSQL: an agent's reply, timed over HTTP while a `VACUUM (ANALYZE)` of
 * a large `conversations` runs unpaced (as the maintenance worker's does, like
 * any VACUUM typed by hand), at autovacuum's own pace (vacuum_cost_delay 2 ms
 * per vacuum_cost_limit 200 units of page work), or not at all. Pacing was
 * the candidate fix for the soak's p99 after 45 minutes; this bench showed it
 * brings no request any relief (docs/BENCHMARKS.md), so the worker stays unpaced.
 *
 * One in-process server (DB_MAINTENANCE=off: the bench runs each VACUUM
 * itself), BENCH_PACE_CONVERSATIONS (default 200,000) conversations added,
 * and before each measurement a quarter of them updated (dead rows for the
 * VACUUM, in every index). The three modes alternate, BENCH_PACE_ROUNDS
 * (default 4) rounds, so load from elsewhere falls on all of them alike.
 * Replies run back to back for as long as the VACUUM does (and at least
 * 3 s); "none" measures the same 3 s with nothing else running.
 *
 *   deno task bench maintenance_pace
 */
import { startFakeAi } from "../tests/helpers/fake_ai.ts";
import { standardSeed } from "../tests/helpers/fixtures.ts";
import { startTestServer } from "../tests/helpers/test_server.ts";
import { WIDGET_ENV } from "../tests/widget/widget_client.ts";
import type { Sql } from "../db/client.ts";
import { percentile, realPostgresUrl, withDatabase } from "./support.ts";
import { reply, startConversation } from "./agent_replies.ts";

const FILL = Number(Deno.env.get("BENCH_PACE_CONVERSATIONS") ?? "200000");
const ROUNDS = Number(Deno.env.get("BENCH_PACE_ROUNDS") ?? "4");
const MIN_MS = 3000;
type Mode = "unpaced" | "paced" | "none";

/** VACUUM (ANALYZE) of conversations on a connection of its own, paced as autovacuum or not. */
async function vacuumConversations(sql: Sql, paced: boolean): Promise<void> {
  const conn = await sql.reserve();
  try {
    if (paced) await conn`SELECT set_config('vacuum_cost_delay', '2ms', false)`;
    await conn`VACUUM (ANALYZE) conversations`;
  } finally {
    await conn`RESET vacuum_cost_delay`;
    conn.release();
  }
}

async function measure(): Promise<string> {
  const ai = startFakeAi({ reply: "Happy to help." });
  const s = await startTestServer({
    seed: standardSeed({ monthlyLimit: 100_000_000 }),
    env: { ...WIDGET_ENV, AI_BASE_URL: ai.baseUrl, LOG_LEVEL: "error", DB_MAINTENANCE: "off" },
  });
  try {
    const conversation = await startConversation(s, "v_pace");
    const [bot] = await s.deps.sql<{ workspace_id: number; chatbot_id: number }[]>`
      SELECT workspace_id, chatbot_id FROM conversations WHERE public_id = ${conversation}`;
    await s.deps.sql`
      INSERT INTO conversations (workspace_id, chatbot_id, visitor_id, created_at, last_message_at)
      SELECT ${bot!.workspace_id}, ${bot!.chatbot_id}, 'v_fill_' || g,
             now() - g * interval '1 second', now() - g * interval '1 second'
        FROM generate_series(1, ${FILL}) g`;
    await s.deps.sql`VACUUM ANALYZE conversations`;
    for (let i = 0; i < 30; i++) await (await reply(s, conversation, `warm ${i}`)).arrayBuffer();

    const times: Record<Mode, number[]> = { unpaced: [], paced: [], none: [] };
    const vacuumMs: Record<Mode, number[]> = { unpaced: [], paced: [], none: [] };
    const loads: number[] = [];
    let n = 0;
    const modes: Mode[] = ["unpaced", "paced", "none"];
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of modes.map((_, i) => modes[(i + round) % modes.length]!)) {
        await s.deps.sql`
          UPDATE conversations SET last_message_at = last_message_at + interval '1 second'
           WHERE visitor_id LIKE 'v_fill_%' AND id % 4 = ${(n++) % 4}`;
        let vacuumDone = mode === "none";
        const started = performance.now();
        const vacuum = mode === "none"
          ? Promise.resolve()
          : vacuumConversations(s.deps.sql, mode === "paced").then(() => {
            vacuumDone = true;
            vacuumMs[mode].push(performance.now() - started);
          });
        while (!vacuumDone || performance.now() - started < MIN_MS) {
          const t0 = performance.now();
          const res = await reply(s, conversation, `${mode} ${round} ${n++}`);
          await res.arrayBuffer();
          if (!res.ok) throw new Error(`reply ${res.status}`);
          times[mode].push(performance.now() - t0);
        }
        await vacuum;
        loads.push(Number((await Deno.readTextFile("/proc/loadavg")).split(" ")[0]));
      }
    }
    const f = (v: number[], p: number) => v.length ? percentile(v, p).toFixed(1) : "–";
    const rows = modes.map((m) =>
      `| ${m} | ${times[m].length} | ${f(times[m], 0.5)} / ${f(times[m], 0.9)} / ${
        f(times[m], 0.99)
      } | ${
        m === "none"
          ? "–"
          : `${f(vacuumMs[m], 0.5)} (${vacuumMs[m].map((x) => x.toFixed(0)).join(", ")})`
      } |`
    );
    return [
      `${FILL.toLocaleString("en")} conversations, a quarter updated before each measurement; ` +
      `${ROUNDS} rounds, modes alternating; load ${Math.min(...loads).toFixed(1)} to ${
        Math.max(...loads).toFixed(1)
      }.`,
      "",
      "| VACUUM (ANALYZE) of conversations | replies timed | reply HTTP p50 / p90 / p99 (ms) | VACUUM ms, median (each) |",
      "|---|---|---|---|",
      ...rows,
    ].join("\n");
  } finally {
    await s.stop();
    await ai.close();
  }
}

export async function run(): Promise<string> {
  const pg = await realPostgresUrl();
  if (!pg) {
    return "## Maintenance pace\n\nPostgreSQL not reachable: skipped (the embedded database is never paced).";
  }
  return [
    "## What table maintenance costs the requests beside it (issue 44)",
    "",
    await withDatabase(pg, measure),
  ].join("\n");
}

if (import.meta.main) console.log(await run());
