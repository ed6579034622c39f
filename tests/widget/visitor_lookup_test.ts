/**
 * A visitor's latest open conversation (the widget's heartbeat and history
 * without an id, an agent's invitation) is read from the visitor's own rows,
 * however many open conversations the workspace holds (issue 44). The soak
 * found the lookup walking the workspace's open conversations newest first,
 * once ANALYZE had seen a few dozen per visitor: for a visitor with no recent
 * open one it read all of them, 24,761 rows at 53 minutes, and every
 * heartbeat grew slower with the table. Checked here on the statement's own
 * plan (rows read), not on a time: the answer is right either way, only the
 * work differs.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed } from "../helpers/fixtures.ts";
import { explaining, type PlanNode, rowsRead } from "../helpers/explain.ts";
import { findLatestOpenConversation } from "../../db/widget_conversations.ts";
import { findOpenConversationBot } from "../../db/invited_conversations.ts";

const BUSY_VISITORS = 500;
const OPEN_EACH = 40;

Deno.test(
  "widget: a visitor's open conversation is found from the visitor's rows, not the workspace's",
  serverTestOptions,
  async (t) => {
    const s = await startTestServer({ seed: standardSeed() });
    const sql = s.deps.sql;
    try {
      const [bot] = await sql<{ id: number; workspace_id: number }[]>`
        SELECT id::int, workspace_id::int FROM chatbots WHERE public_key = 'acme-helper'`;
      const { id: botId, workspace_id: ws } = bot!;
      // A busy workspace: 500 returning visitors with 40 open conversations each (20,000: more
      // visitors than ANALYZE keeps as most common values, as in the soak), their
      // activity spread over the last days; one visitor whose only open conversation is the
      // oldest; one who has only closed ones.
      await sql`
        INSERT INTO conversations (workspace_id, chatbot_id, visitor_id, status, last_message_at,
          created_at)
        SELECT ${ws}, ${botId}, 'v_busy_' || (i % ${BUSY_VISITORS}), 'bot',
               now() - make_interval(secs => i * 60), now() - make_interval(secs => i * 60)
          FROM generate_series(1, ${BUSY_VISITORS * OPEN_EACH}) i`;
      const [old] = await sql<{ id: number }[]>`
        INSERT INTO conversations (workspace_id, chatbot_id, visitor_id, status, last_message_at,
          created_at)
        VALUES (${ws}, ${botId}, 'v_quiet', 'bot', now() - interval '30 days',
                now() - interval '30 days')
        RETURNING id::int`;
      await sql`
        INSERT INTO conversations (workspace_id, chatbot_id, visitor_id, status, resolution,
          resolved_at, last_message_at, created_at)
        VALUES (${ws}, ${botId}, 'v_closed', 'closed', 'resolved', now(), now(), now())`;
      await sql`ANALYZE conversations`;

      const plans: PlanNode[] = [];
      const explained = explaining(sql, plans, /^\s*SELECT\b/i);
      const cases: [visitor: string, bound: number][] = [
        ["v_quiet", 1], // its one open conversation
        ["v_closed", 1], // none open
        ["v_nobody", 1], // never seen
        ["v_busy_7", OPEN_EACH], // at most its own
      ];
      await t.step("the answers: the visitor's latest open conversation, or none", async () => {
        assertEquals((await findLatestOpenConversation(sql, ws, botId, "v_quiet"))?.id, old!.id);
        assertEquals(await findLatestOpenConversation(sql, ws, botId, "v_closed"), null);
        assertEquals(await findLatestOpenConversation(sql, ws, botId, "v_nobody"), null);
        const [latest] = await sql<{ id: number }[]>`
          SELECT id::int FROM conversations WHERE visitor_id = 'v_busy_7'
           ORDER BY last_message_at DESC, id DESC LIMIT 1`;
        assertEquals(
          Number((await findLatestOpenConversation(sql, ws, botId, "v_busy_7"))?.id),
          latest!.id,
        );
        assertEquals(await findOpenConversationBot(sql, ws, "v_quiet"), botId);
        assertEquals(await findOpenConversationBot(sql, ws, "v_nobody"), null);
      });

      await t.step("the heartbeat's lookup reads the visitor's rows only", async () => {
        for (const [visitor, bound] of cases) {
          plans.length = 0;
          await findLatestOpenConversation(explained, ws, botId, visitor);
          assertEquals(plans.length, 1);
          const read = rowsRead(plans[0]!, "conversations");
          assertOk(read <= bound, `${visitor}: ${read} rows read (at most ${bound})`);
        }
      });

      await t.step("the invitation's lookup too", async () => {
        for (const [visitor, bound] of cases) {
          plans.length = 0;
          await findOpenConversationBot(explained, ws, visitor);
          assertEquals(plans.length, 1);
          const read = rowsRead(plans[0]!, "conversations");
          assertOk(read <= bound, `${visitor}: ${read} rows read (at most ${bound})`);
        }
      });
    } finally {
      await s.stop();
    }
  },
);
