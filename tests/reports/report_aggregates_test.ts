/**
 * The report's maintained counts stay exact through every write that changes
 * them (migration 0250, docs/reports.md "How it is computed"): after each
 * step, `report_message_quarters` equals the messages counted afresh per
 * quarter hour, bot, assigned member and role, `report_conversation_quarters`
 * the conversations started and handed off counted afresh, and each
 * conversation's facts (a `human_connected` event, first AI reply, first
 * human reply, first human reply after the latest handoff request) equal the
 * ones read from its events and messages. Steps: the
 * known history (widget streams, handoff requests, agents' replies,
 * resolutions), a reassignment and an unassignment, a second handoff request
 * after an answer, retention deleting the resolved conversations, a bot
 * deleted with its conversations, and the writes no surface makes today (a
 * message moved in time, a message deleted alone).
 */
import { assertEquals, assertOk as assert } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { http } from "../helpers/http.ts";
import { T } from "../helpers/fixtures.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { waitUntil } from "../helpers/wait.ts";
import { D, dashboardSeed } from "../dashboard/dashboard_seed.ts";
import { buildHistory } from "./report_history.ts";

const fake = startFakeAi({ reply: "Happy to help." });
const s = await startTestServer({
  seed: dashboardSeed(),
  env: {
    TRUSTED_PROXIES: "127.0.0.1",
    AI_BASE_URL: fake.baseUrl,
    // Retention every second, two conversations a batch: several transactions.
    RETENTION_INTERVAL_SECONDS: "1",
    RETENTION_BATCH_SIZE: "2",
  },
});

/** Rows where the kept counts and a fresh count disagree (none when exact), and the fresh total. */
async function drift() {
  const rows = await s.deps.sql<{ side: string; quarter: Date; role: string; n: string }[]>`
    WITH fresh AS (
      SELECT c.workspace_id, report_quarter(m.created_at) AS quarter, c.chatbot_id,
             COALESCE(c.assigned_user_id, 0) AS assignee_id, m.role, count(*) AS n,
             sum(m.tokens_in + m.tokens_out) AS tokens, sum(m.cost_micro_cents) AS cost
        FROM messages m JOIN conversations c ON c.id = m.conversation_id
       GROUP BY 1, 2, 3, 4, 5),
    kept AS (
      SELECT workspace_id, quarter, chatbot_id, assignee_id, role, n, tokens::numeric,
             cost_micro_cents::numeric
        FROM report_message_quarters
       WHERE n <> 0 OR tokens <> 0 OR cost_micro_cents <> 0)
    SELECT 'missing' AS side, * FROM (SELECT * FROM fresh EXCEPT SELECT * FROM kept) a
    UNION ALL
    SELECT 'extra', * FROM (SELECT * FROM kept EXCEPT SELECT * FROM fresh) b`;
  const started = await s.deps.sql<{ side: string; quarter: Date }[]>`
    WITH fresh AS (
      SELECT c.workspace_id, report_quarter(c.created_at) AS quarter, c.chatbot_id,
             COALESCE(c.assigned_user_id, 0) AS assignee_id, count(*) AS conversations,
             count(*) FILTER (WHERE c.handoff_requested_at IS NOT NULL OR EXISTS (
               SELECT 1 FROM conversation_events e
                WHERE e.conversation_id = c.id AND e.type = 'human_connected')) AS handoffs
        FROM conversations c
       GROUP BY 1, 2, 3, 4),
    kept AS (
      SELECT workspace_id, quarter, chatbot_id, assignee_id, conversations, handoffs
        FROM report_conversation_quarters WHERE conversations <> 0 OR handoffs <> 0)
    SELECT 'missing' AS side, * FROM (SELECT * FROM fresh EXCEPT SELECT * FROM kept) a
    UNION ALL
    SELECT 'extra', * FROM (SELECT * FROM kept EXCEPT SELECT * FROM fresh) b`;
  const facts = await s.deps.sql<{ id: number }[]>`
    SELECT c.id FROM conversations c
     WHERE (c.human_connected, c.first_ai_reply_at, c.first_human_reply_at,
            c.first_response_at) IS DISTINCT FROM (
       EXISTS (SELECT 1 FROM conversation_events e
                WHERE e.conversation_id = c.id AND e.type = 'human_connected'),
       (SELECT min(m.created_at) FROM messages m
         WHERE m.conversation_id = c.id AND m.role = 'assistant'),
       (SELECT min(m.created_at) FROM messages m
         WHERE m.conversation_id = c.id AND m.role = 'agent'),
       (SELECT min(m.created_at) FROM messages m
         WHERE m.conversation_id = c.id AND m.role = 'agent'
           AND m.created_at >= c.handoff_requested_at))`;
  const [total] = await s.deps.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM messages`;
  return { rows: [...rows, ...started], facts: facts.map((f) => f.id), messages: total!.n };
}

async function assertExact(atLeast = 1) {
  const d = await drift();
  assertEquals({ rows: d.rows, facts: d.facts }, { rows: [], facts: [] });
  assert(d.messages >= atLeast, `only ${d.messages} messages: nothing checked`);
}

const agentCall = (token: string, path: string, body?: unknown) =>
  http(s.url, "POST", `/api/agent/conversations/${path}`, { token, ...(body ? { body } : {}) });

async function conversationOf(visitor: string) {
  const [c] = await s.deps.sql<{ public_id: string; id: number }[]>`
    SELECT public_id::text, id::int FROM conversations WHERE visitor_id = ${visitor}`;
  return c!;
}

Deno.test("the report's maintained counts stay exact", serverTestOptions, async (t) => {
  const realClock = s.deps.clock;
  try {
    const h = await buildHistory(s);

    await t.step("widget streams, handoffs, agents' replies, resolutions", async () => {
      await assertExact(10);
      const [answered] = await s.deps.sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM conversations WHERE first_response_at IS NOT NULL`;
      assertEquals(answered!.n, 2);
    });

    await t.step("reassigned and unassigned: its messages move with it", async () => {
      const d = await conversationOf("v_d");
      const to = (user: number | null) =>
        agentCall(T.acme.administrator.agent, `${d.public_id}/assign`, { user_id: user });
      assertEquals((await to(h.abe)).status, 200);
      await assertExact();
      const [moved] = await s.deps.sql<{ n: number }[]>`
        SELECT sum(n)::int AS n FROM report_message_quarters WHERE assignee_id = ${h.abe}`;
      assert(moved!.n > 0, "Abe's key holds D's messages");
      assertEquals((await to(null)).status, 200);
      await assertExact();
    });

    await t.step("a second handoff request after an answer starts the wait again", async () => {
      const d = await conversationOf("v_d");
      s.deps.clock = () => new Date("2026-02-01T20:30:00Z");
      const reply = await agentCall(T.acme.agent.agent, `${d.public_id}/reply`, {
        body: "Amy here.",
      });
      assertEquals(reply.status, 200, JSON.stringify(reply.body));
      await assertExact();
      const [answered] = await s.deps.sql<{ first_response_at: Date | null }[]>`
        SELECT first_response_at FROM conversations WHERE id = ${d.id}`;
      assertEquals(answered!.first_response_at, new Date("2026-02-01T20:30:00Z"));
      s.deps.clock = () => new Date("2026-02-01T20:40:00Z");
      assertEquals((await agentCall(T.acme.agent.agent, `${d.public_id}/release`)).status, 200);
      const ask = await http(s.url, "POST", "/widget/acme-helper/handoff", {
        body: { visitor_id: "v_d", conversation_id: d.public_id },
      });
      assertEquals(ask.status, 200, JSON.stringify(ask.body));
      await assertExact();
      const [again] = await s.deps.sql<{ first_response_at: Date | null }[]>`
        SELECT first_response_at FROM conversations WHERE id = ${d.id}`;
      assertEquals(again!.first_response_at, null);
    });

    await t.step("writes no surface makes today: a message moved, one deleted", async () => {
      const d = await conversationOf("v_d");
      await s.deps.sql`
        UPDATE messages SET created_at = created_at + interval '1 hour'
         WHERE id = (SELECT min(id) FROM messages WHERE conversation_id = ${d.id})`;
      await assertExact();
      await s.deps.sql`
        DELETE FROM messages
         WHERE id = (SELECT max(id) FROM messages WHERE conversation_id = ${d.id}
                        AND role = 'agent')`;
      await assertExact();
    });

    await t.step("retention deletes the resolved conversations", async () => {
      const put = await http(s.url, "PUT", "/api/dashboard/retention", {
        token: D.acme.owner,
        body: { retention_days: 30 },
      });
      assertEquals(put.status, 200, JSON.stringify(put.body));
      s.deps.clock = () => new Date("2026-04-01T00:00:00Z");
      await waitUntil(
        async () =>
          (await s.deps.sql`SELECT 1 FROM conversations WHERE status = 'closed'
                             AND workspace_id = (SELECT workspace_id FROM conversations
                                                  WHERE visitor_id = 'v_d')`).length === 0,
        "retention's deletion",
        20_000,
      );
      await assertExact();
    });

    await t.step("a bot deleted with its conversations", async () => {
      const del = await http(s.url, "DELETE", "/api/dashboard/chatbots/acme-helper", {
        token: D.acme.owner,
      });
      assert(del.status < 300, `${del.status} ${JSON.stringify(del.body)}`);
      await assertExact(0);
      const [left] = await s.deps.sql<{ n: number }[]>`
        SELECT COALESCE(sum(q.n), 0)::int AS n FROM report_message_quarters q
         WHERE NOT EXISTS (SELECT 1 FROM chatbots b WHERE b.id = q.chatbot_id)`;
      assertEquals(left!.n, 0);
    });
  } finally {
    s.deps.clock = realClock;
    await s.stop();
    await fake.close();
  }
});
