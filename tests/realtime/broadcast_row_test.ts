/**
 * The inbox row broadcast with every conversation event (docs/realtime.md)
 * costs the same in a long conversation as in a new one (issue 44). With no
 * viewer its `unread` is every visitor message of the conversation; counted
 * from `messages` that walked all of them once per event, and the soak's long
 * conversation made the statement slower with every window. The count is now
 * kept on the conversation by the statements that store visitor messages
 * (migration 0290). Checked here: the count is exact through the widget's
 * first turn, later turns and a deletion, and the row's statement reads one
 * message (the preview), however long the conversation.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed } from "../helpers/fixtures.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { explaining, type PlanNode, rowsRead } from "../helpers/explain.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { appendMessage } from "../../db/messages.ts";
import { inboxRowByPublicId } from "../../db/inbox.ts";

const TURNS = 300;

Deno.test(
  "realtime: the broadcast inbox row counts a long conversation's visitor messages without reading them",
  serverTestOptions,
  async (t) => {
    const fake = startFakeAi({ reply: "Happy to help." });
    const s = await startTestServer({
      seed: standardSeed(),
      env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
    });
    const sql = s.deps.sql;
    try {
      // The widget's first turn (the conversation's INSERT counts its first message).
      const first = await postStream(s.url, "acme-helper", {
        visitor_id: "v_long",
        message: "Hello, a long chat starts here.",
      });
      const publicId = first.events[0]!.data.conversation_id as string;
      const [conv] = await sql<{ id: number; workspace_id: number }[]>`
        SELECT id::int, workspace_id::int FROM conversations WHERE public_id = ${publicId}`;
      const { id, workspace_id: ws } = conv!;
      const countOf = async () =>
        (await sql<{ n: number; kept: number }[]>`
          SELECT (SELECT count(*)::int FROM messages
                   WHERE conversation_id = ${id} AND role = 'visitor') AS n,
                 (SELECT visitor_message_count FROM conversations WHERE id = ${id}) AS kept`)[0]!;

      await t.step("the first turn and a second through the widget are counted", async () => {
        await postStream(s.url, "acme-helper", {
          visitor_id: "v_long",
          conversation_id: publicId,
          message: "And a second question.",
        });
        const { n, kept } = await countOf();
        assertEquals(n, 2);
        assertEquals(kept, 2);
        assertEquals((await inboxRowByPublicId(sql, ws, null, publicId))?.unread, 2);
      });

      await t.step(
        `${TURNS} more turns: the count follows, the row reads one message`,
        async () => {
          for (let i = 0; i < TURNS; i++) {
            const now = new Date();
            await appendMessage(sql, ws, {
              conversationId: id,
              role: "visitor",
              content: `q ${i}`,
              now,
            });
            await appendMessage(sql, ws, {
              conversationId: id,
              role: "assistant",
              content: `a ${i}`,
              now,
            });
          }
          await sql`ANALYZE messages`;
          const { n, kept } = await countOf();
          assertEquals(n, TURNS + 2);
          assertEquals(kept, n);
          assertEquals((await inboxRowByPublicId(sql, ws, null, publicId))?.unread, n);

          const plans: PlanNode[] = [];
          await inboxRowByPublicId(explaining(sql, plans, /^\s*WITH page AS/), ws, null, publicId);
          assertEquals(plans.length, 1);
          const read = rowsRead(plans[0]!, "messages");
          assertOk(read <= 1, `${read} messages read for the row (the preview's one at most)`);
        },
      );

      await t.step(
        "visitor messages deleted while the conversation stays leave the count",
        async () => {
          await sql`
          DELETE FROM messages WHERE conversation_id = ${id} AND role = 'visitor'
             AND content IN ('q 0', 'q 1', 'q 2')`;
          const { n, kept } = await countOf();
          assertEquals(n, TURNS - 1);
          assertEquals(kept, n);
        },
      );
    } finally {
      await s.stop();
      await fake.close();
    }
  },
);
