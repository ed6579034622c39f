/**
 * Where PostgreSQL's autovacuum does not run (the embedded database always;
 * CI's PostgreSQL has `autovacuum = off`), the server keeps the statistics
 * fresh itself (domain/maintenance/), so the plans its prepared statements
 * keep follow the tables as they grow (issue 44).
 *
 * The symptom it prevents: a plan made while the tables were empty, kept by
 * every connection, read every open conversation of the workspace to find the
 * one an agent replies to, so each reply slowed as conversations piled up.
 * Counted here in rows read (pg_stat_user_tables), not in milliseconds: with
 * DB_MAINTENANCE=off the ten replies read about 4,000 rows each.
 */
import { assertEquals, assertOk as assert } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";

const PILED_UP = 4000;
const MEASURED_REPLIES = 10;

Deno.test(
  "table maintenance keeps the reply's plan for the tables as they are",
  serverTestOptions,
  async (t) => {
    const fake = startFakeAi({ reply: "Happy to help." });
    const s = await startTestServer({
      seed: standardSeed({ monthlyLimit: null }),
      env: {
        AI_BASE_URL: fake.baseUrl,
        LOG_LEVEL: "silent",
        DB_MAINTENANCE: "on",
        DB_MAINTENANCE_SECONDS: "1",
        ...WIDGET_ENV,
      },
    });
    const sql = s.deps.sql;
    let n = 0;
    const reply = async (conversation: string) => {
      const res = await fetch(`${s.url}/api/agent/conversations/${conversation}/reply`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${T.acme.agent.agent}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ body: `reply ${++n}`, client_id: `c${n}` }),
      });
      await res.arrayBuffer();
      assertEquals(res.status, 200);
    };
    /** Rows read from conversations so far, once every connection has reported its counts. */
    const rowsRead = async (): Promise<number> => {
      let last = -1;
      for (let i = 0; i < 40; i++) {
        await sql`SELECT pg_stat_force_next_flush()`;
        await sql`SELECT 1`;
        const [row] = await sql<{ read: number }[]>`
        SELECT (coalesce(idx_tup_fetch, 0) + coalesce(seq_tup_read, 0))::float8 AS read
          FROM pg_stat_user_tables WHERE relname = 'conversations'`;
        if (row!.read === last) return last;
        last = row!.read;
        await new Promise((r) => setTimeout(r, 1500));
      }
      throw new Error("the statistics never settled");
    };

    try {
      const started = await postStream(s.url, "acme-helper", {
        visitor_id: "v_maint",
        message: "Hello",
      }, freshIp());
      const conversation = started.events.find((e) => e.event === "meta")!.data
        .conversation_id as string;
      const [row] = await sql<{ workspace_id: number; chatbot_id: number }[]>`
        SELECT workspace_id, chatbot_id FROM conversations WHERE public_id = ${conversation}`;
      const { workspace_id: workspaceId, chatbot_id: chatbotId } = row!;

      await t.step("replies while the tables are small make the statement's plan", async () => {
        // Past the five custom plans a prepared statement gets before its generic one.
        for (let i = 0; i < 60; i++) await reply(conversation);
      });

      await t.step("conversations pile up, and the maintenance analyzes the table", async () => {
        await sql`
        INSERT INTO conversations (workspace_id, chatbot_id, visitor_id, status, handoff_state)
        SELECT ${workspaceId}, ${chatbotId}, 'v_pile_' || g, 'agent', 'human_connected'
          FROM generate_series(1, ${PILED_UP}) g`;
        const deadline = Date.now() + 30_000;
        for (;;) {
          await sql`SELECT pg_stat_force_next_flush()`;
          const [row] = await sql<{ analyzed: boolean }[]>`
          SELECT coalesce(greatest(last_analyze, last_autoanalyze) > now() - interval '1 hour'
                          AND n_mod_since_analyze < 100, false) AS analyzed
            FROM pg_stat_user_tables WHERE relname = 'conversations'`;
          if (row?.analyzed) break;
          assert(Date.now() < deadline, "conversations was not analyzed within 30 s");
          await new Promise((r) => setTimeout(r, 500));
        }
      });

      await t.step("each reply then reads its own conversation, not every open one", async () => {
        const before = await rowsRead();
        for (let i = 0; i < MEASURED_REPLIES; i++) await reply(conversation);
        const read = (await rowsRead()) - before;
        assert(
          read < PILED_UP,
          `${MEASURED_REPLIES} replies read ${read} conversation rows (at most one pile's worth expected)`,
        );
      });
    } finally {
      await s.stop();
      await fake.close();
    }
  },
);
