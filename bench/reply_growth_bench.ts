/**
 * An agent's reply on a long conversation: the time from `POST .../reply` to
 * its `message.created` on a subscribed socket, and the reply's own HTTP round
 * trip, on a conversation of a few messages and on one of BENCH_LONG_MESSAGES
 * (default 7,000: what the 30-minute soak's one conversation grew to), the two
 * interleaved reply by reply in one run so load falls on both alike. On the
 * embedded database and, when it answers, a real PostgreSQL.
 */
import { startFakeAi } from "../tests/helpers/fake_ai.ts";
import { standardSeed } from "../tests/helpers/fixtures.ts";
import { startTestServer } from "../tests/helpers/test_server.ts";
import { pusherClient } from "../tests/realtime/pusher_helpers.ts";
import { WIDGET_ENV } from "../tests/widget/widget_client.ts";
import { percentile, realPostgresUrl, withDatabase } from "./support.ts";
import { AGENT, reply, startConversation, watchReplies } from "./agent_replies.ts";

const SAMPLES = Number(Deno.env.get("BENCH_REPLY_SAMPLES") ?? "150");
const LONG = Number(Deno.env.get("BENCH_LONG_MESSAGES") ?? "7000");

async function measure(label: string): Promise<string> {
  const ai = startFakeAi({ reply: "Happy to help." });
  const s = await startTestServer({
    seed: standardSeed({ monthlyLimit: 100_000_000 }),
    env: { ...WIDGET_ENV, AI_BASE_URL: ai.baseUrl },
  });
  const watcher = pusherClient(s, { token: AGENT });
  try {
    const short = await startConversation(s, "v_short");
    const long = await startConversation(s, "v_long");
    // The agent takes both over (the first reply), so every measured reply is the steady one.
    for (const c of [short, long]) await (await reply(s, c, `first ${c}`)).arrayBuffer();
    const [row] = await s.deps.sql<{ id: number }[]>`
      SELECT id FROM conversations WHERE public_id = ${long}`;
    const conversationId = row!.id;
    await s.deps.sql`
      INSERT INTO messages (workspace_id, conversation_id, role, content, author_user_id,
                            client_id, created_at)
      SELECT c.workspace_id, c.id, CASE WHEN g % 2 = 0 THEN 'agent' ELSE 'visitor' END,
             'Earlier message ' || g, NULL, CASE WHEN g % 2 = 0 THEN 'old ' || g END,
             now() - make_interval(secs => ${LONG} - g)
        FROM conversations c, generate_series(1, ${LONG}) g
       WHERE c.id = ${conversationId}`;
    await s.deps.sql`ANALYZE messages`;

    const watch = await watchReplies(s, watcher);
    const times = {
      short: { http: [] as number[], event: [] as number[] },
      long: { http: [] as number[], event: [] as number[] },
    };
    for (let i = 0; i < SAMPLES + 10; i++) {
      for (const [name, c] of [["short", short], ["long", long]] as const) {
        const body = `bench ${name} ${i}`;
        const arrived = watch.heard(body);
        const t0 = performance.now();
        const res = await reply(s, c, body);
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`reply ${res.status}`);
        const http = performance.now() - t0;
        const event = (await arrived) - t0;
        if (i >= 10) {
          times[name].http.push(http);
          times[name].event.push(event);
        }
      }
    }
    const f = (v: number[], p: number) => percentile(v, p).toFixed(2);
    return [
      `| ${label} | ${LONG + 2} messages | ${f(times.long.event, 0.5)} / ${
        f(times.long.event, 0.99)
      } | ${f(times.long.http, 0.5)} |`,
      `| ${label} | 2 messages (baseline) | ${f(times.short.event, 0.5)} / ${
        f(times.short.event, 0.99)
      } | ${f(times.short.http, 0.5)} |`,
    ].join("\n");
  } finally {
    watcher.disconnect();
    await s.stop();
    await ai.close();
  }
}

export async function run(): Promise<string> {
  const rows = [await withDatabase(null, () => measure("embedded"))];
  const pg = await realPostgresUrl();
  if (pg) rows.push(await withDatabase(pg, () => measure("PostgreSQL")));
  return [
    "## Agent reply on a long conversation",
    "",
    `${SAMPLES} replies to each conversation, interleaved; from \`POST /api/agent/conversations/{id}/reply\` to its \`message.created\` on a subscribed socket (ms).`,
    "",
    "| Database | Conversation | reply → event p50 / p99 | reply HTTP p50 |",
    "|---|---|---|---|",
    ...rows,
  ].join("\n");
}

if (import.meta.main) console.log(await run());
