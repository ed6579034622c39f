/**
 * Agent API part 2: `GET /api/agent/visitors` on a workspace with 50,000
 * visitors of whom 5,000 are browsing now (1,000 with an open conversation),
 * an invitation to a live visitor, a suggestion (against the stub AI, no
 * latency: our own cost around the provider call), and customer context
 * served from its cache, each beside the REST door's trivial procedure on the
 * same server in the same run. Also prints the live list's query plan.
 *
 * Bulk data is written with SQL (a bench arranges state; the tests prove the
 * behaviour over HTTP), then VACUUM ANALYZE.
 */
import { startTestServer, type TestServer } from "../tests/helpers/test_server.ts";
import { standardSeed, T } from "../tests/helpers/fixtures.ts";
import { startFakeAi } from "../tests/helpers/fake_ai.ts";
import { percentile, realPostgresUrl, timeRequests, withDatabase } from "./support.ts";

const VISITORS = Number(Deno.env.get("BENCH_VISITORS") ?? "50000");
const SAMPLES = Number(Deno.env.get("BENCH_SAMPLES") ?? "100");
const TIMING = { samples: SAMPLES, warmUp: 10 };

async function fill(s: TestServer): Promise<{ conversation: string }> {
  const sql = s.deps.sql;
  const [ids] = await sql<{ ws: number; bot: number }[]>`
    SELECT w.id AS ws, b.id AS bot FROM workspaces w JOIN chatbots b ON b.workspace_id = w.id
     WHERE w.slug = 'acme' AND b.public_key = 'acme-helper'`;
  const { ws, bot } = ids!;
  // One visitor in ten is live (seen in the last 30 s), the rest left hours ago.
  await sql`
    INSERT INTO visitors (workspace_id, chatbot_id, visitor_id, page_url, page_title, user_agent,
      page_views, first_seen_at, last_seen_at, visit_started_at)
    SELECT ${ws}, ${bot}, 'bv-' || i, 'https://acme.test/p/' || (i % 50), 'Page ' || (i % 50),
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
      1 + i % 7, now() - interval '10 minutes',
      CASE WHEN i % 10 = 0 THEN now() - (i % 30) * interval '1 second'
           ELSE now() - interval '3 hours' - i * interval '1 second' END,
      now() - interval '10 minutes'
      FROM generate_series(1, ${VISITORS}) AS i`;
  await sql`
    INSERT INTO conversations (workspace_id, chatbot_id, visitor_id, status, last_message_at)
    SELECT ${ws}, ${bot}, 'bv-' || i, 'bot', now() - i * interval '1 second'
      FROM generate_series(10, ${VISITORS}, 50) AS i`;
  const [c] = await sql<{ public_id: string }[]>`
    INSERT INTO conversations (workspace_id, chatbot_id, visitor_id, status, visitor_email)
    VALUES (${ws}, ${bot}, 'bench-suggest', 'bot', 'jane@example.com') RETURNING public_id`;
  await sql`
    INSERT INTO messages (workspace_id, conversation_id, role, content)
    SELECT ${ws}, id, 'visitor', 'How long does express shipping take?' FROM conversations
     WHERE public_id = ${c!.public_id}`;
  await sql`VACUUM ANALYZE`;
  return { conversation: c!.public_id };
}

async function measure(): Promise<string> {
  const ai = startFakeAi({ reply: "Express shipping takes 2 days." });
  const s = await startTestServer({
    seed: standardSeed(),
    env: { LOG_LEVEL: "error", AI_BASE_URL: ai.baseUrl },
  });
  try {
    const { conversation } = await fill(s);
    const [ws] = await s.deps.sql<{ id: number }[]>`SELECT id FROM workspaces WHERE slug = 'acme'`;
    // The live list's statement (db/visitors.ts listLiveVisitors), as PostgreSQL runs it.
    const plan = await s.deps.sql<{ "QUERY PLAN": string }[]>`
      EXPLAIN (ANALYZE, COSTS OFF) WITH live AS (
        SELECT chatbot_id, visitor_id, last_seen_at FROM visitors
         WHERE workspace_id = ${ws!.id} AND last_seen_at >= now() - interval '45 seconds'
         ORDER BY last_seen_at DESC, visitor_id LIMIT 100),
      open AS (
        SELECT DISTINCT ON (c.chatbot_id, c.visitor_id) c.chatbot_id, c.visitor_id, c.public_id
          FROM live l
          JOIN conversations c ON c.chatbot_id = l.chatbot_id AND c.visitor_id = l.visitor_id
         WHERE c.workspace_id = ${ws!.id} AND c.status <> 'closed'
         ORDER BY c.chatbot_id, c.visitor_id, c.last_message_at DESC, c.id DESC)
      SELECT v.visitor_id, b.public_key, o.public_id FROM live v
        JOIN chatbots b ON b.id = v.chatbot_id
        LEFT JOIN open o ON o.chatbot_id = v.chatbot_id AND o.visitor_id = v.visitor_id
       ORDER BY v.last_seen_at DESC, v.visitor_id`;
    const auth = { authorization: `Bearer ${T.acme.agent.agent}`, accept: "application/json" };
    const json = { ...auth, "content-type": "application/json" };
    const get = (path: string) => () => fetch(`${s.url}${path}`, { headers: auth });
    // Route limits are per user (30 a minute): calls are spread over three agents, 25 each.
    const tokens = [T.acme.agent.agent, T.acme.owner.agent, T.acme.administrator.agent];
    const limited = (path: (i: number) => string, body: unknown) => (i: number) =>
      fetch(`${s.url}${path(i)}`, {
        method: "POST",
        headers: { ...json, authorization: `Bearer ${tokens[i % 3]}` },
        body: JSON.stringify(body),
      });
    // Each invitation goes to another live visitor (one in five has an open conversation).
    const invite = limited((i) => `/api/agent/visitors/bv-${(i + 1) * 10}/invite`, {
      message: "Hi! Can I help?",
    });
    const rows: [string, number[]][] = [
      ["GET /api/status (trivial procedure)", await timeRequests(get("/api/status"), TIMING)],
      [
        "GET /api/agent/visitors (100 of 5,000 live)",
        await timeRequests(get("/api/agent/visitors"), TIMING),
      ],
      [
        "GET /api/agent/visitors?limit=200",
        await timeRequests(get("/api/agent/visitors?limit=200"), TIMING),
      ],
      [
        "GET …/customer-context (nothing linked)",
        await timeRequests(
          get(`/api/agent/conversations/${conversation}/customer-context`),
          TIMING,
        ),
      ],
    ];
    const slow: [string, number[]][] = [
      ["POST /api/agent/visitors/{visitor}/invite", await timeSpread(invite)],
      [
        "POST …/suggest (stub AI, 0 ms)",
        await timeSpread(limited(() => `/api/agent/conversations/${conversation}/suggest`, {})),
      ],
    ];
    const f1 = (n: number) => n.toFixed(2);
    const line = ([name, t]: [string, number[]]) =>
      `| ${name} | ${f1(percentile(t, 0.5))} ms | ${f1(percentile(t, 0.9))} ms | ` +
      `${f1(percentile(t, 0.99))} ms | ${t.length} |`;
    return [
      `### Agent assist on ${s.deps.db.embedded ? "embedded PGlite" : "PostgreSQL"}`,
      "",
      `${VISITORS.toLocaleString("en")} visitors, ${(VISITORS / 10).toLocaleString("en")} live, ` +
      `${Math.ceil(VISITORS / 50).toLocaleString("en")} open conversations. Sequential requests, ` +
      "same server, same run.",
      "",
      "| Request | p50 | p90 | p99 | n |",
      "|---|---|---|---|---|",
      ...rows.map(line),
      ...slow.map(line),
      "",
      "Live list plan:",
      "",
      "```",
      ...plan.map((r) => r["QUERY PLAN"]),
      "```",
    ].join("\n");
  } finally {
    await s.stop();
    await ai.close();
  }
}

/** Rate-limited routes: 25 calls per agent per minute at most, so 3 agents × 25. */
async function timeSpread(call: (i: number) => Promise<Response>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < 75; i++) {
    const t0 = performance.now();
    const res = await call(i);
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    if (i >= 3) times.push(performance.now() - t0); // the first call per agent warms up
  }
  return times;
}

/** Both backends; BENCH_BACKEND=embedded or postgres measures one. */
export async function run(): Promise<string> {
  const only = Deno.env.get("BENCH_BACKEND");
  const sections: string[] = [];
  if (only !== "postgres") sections.push(await withDatabase(null, measure));
  const real = only === "embedded" ? null : await realPostgresUrl();
  if (real) sections.push(await withDatabase(real, measure));
  return sections.join("\n\n");
}

if (import.meta.main) console.log(await run());
