/**
 * generateReply in streaming mode, as the widget's SSE endpoint uses it:
 * deltas arrive in order and add up to the stored reply, a stream that
 * breaks after text was sent is not retried (502), and an abort stops the
 * provider call without storing a reply. Driven through the running server's
 * own services, since the SSE surface is another issue's.
 */
import { assert_, assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed } from "../helpers/fixtures.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { findActiveChatbotByPublicKey } from "../../db/chatbots.ts";
import { listMessages } from "../../db/messages.ts";
import { startVisitorTurn } from "../../domain/conversations/start_visitor_turn.ts";
import { generateReply } from "../../domain/ai/generate_reply.ts";
import { ProviderUnavailable } from "../../domain/errors.ts";

Deno.test("streamed replies", serverTestOptions, async (t) => {
  const fake = startFakeAi({ reply: "Returns are accepted within 30 days of delivery." });
  const s = await startTestServer({
    seed: standardSeed(),
    env: { AI_BASE_URL: fake.baseUrl, AI_TIMEOUT_MS: "1500" },
  });
  const bot = (await findActiveChatbotByPublicKey(s.deps.sql, "acme-helper"))!;
  const turn = (content: string) =>
    startVisitorTurn(s.deps, {
      workspaceId: bot.workspace_id,
      bot,
      visitorId: "w-1",
      content,
      channel: "widget",
    });
  try {
    await t.step("deltas arrive in order and add up to the stored reply", async () => {
      const { conversation, visitorMessage, aiShouldAnswer } = await turn("Can I return it?");
      assertOk(aiShouldAnswer);
      const deltas: string[] = [];
      const reply = await generateReply(s.deps, {
        workspaceId: bot.workspace_id,
        bot,
        conversation,
        visitorMessage,
      }, { onDelta: (d) => deltas.push(d) });
      assertOk(deltas.length > 3);
      assertEquals(deltas.join(""), reply.message.content);
      assertEquals(reply.message.content, "Returns are accepted within 30 days of delivery.");
      assertEquals(fake.requests.at(-1)!.stream, true);
      assertOk(reply.tokensIn > 0 && reply.tokensOut > 0, "usage read from the final chunk");
      assertEquals(reply.sources, [{ title: "Shipping policy", url: null }]);
    });

    await t.step("a stream that breaks after text was sent is 502, not retried", async () => {
      fake.mode = "fail_mid_stream";
      const { conversation, visitorMessage } = await turn("Returns?");
      const before = fake.requests.length;
      await assert_.rejects(
        () =>
          generateReply(s.deps, {
            workspaceId: bot.workspace_id,
            bot,
            conversation,
            visitorMessage,
          }, { onDelta: () => {} }),
        ProviderUnavailable,
      );
      fake.mode = "ok";
      assertEquals(fake.requests.length - before, 1);
      const msgs = await listMessages(s.deps.sql, bot.workspace_id, conversation.id);
      assertEquals(msgs.map((m) => m.role), ["visitor"]);
    });

    await t.step(
      "a stream that stalls mid-reply is given up after AI_TIMEOUT_MS: 502",
      async () => {
        fake.chunkDelayMs = 4000;
        const { conversation, visitorMessage } = await turn("Returns, anyone?");
        const t0 = performance.now();
        const deltas: string[] = [];
        await assert_.rejects(
          () =>
            generateReply(s.deps, {
              workspaceId: bot.workspace_id,
              bot,
              conversation,
              visitorMessage,
            }, { onDelta: (d) => deltas.push(d) }),
          ProviderUnavailable,
        );
        fake.chunkDelayMs = 0;
        const elapsed = performance.now() - t0;
        assertOk(elapsed >= 1400 && elapsed < 3500, `gave up after ${Math.round(elapsed)} ms`);
        assertEquals(deltas.length, 1);
        const msgs = await listMessages(s.deps.sql, bot.workspace_id, conversation.id);
        assertEquals(msgs.map((m) => m.role), ["visitor"]);
      },
    );

    await t.step("an abort stops the provider stream and stores no reply", async () => {
      fake.chunkDelayMs = 50;
      const { conversation, visitorMessage } = await turn("Returns, slowly?");
      const ac = new AbortController();
      const abortedBefore = fake.aborted;
      await assert_.rejects(() =>
        generateReply(s.deps, {
          workspaceId: bot.workspace_id,
          bot,
          conversation,
          visitorMessage,
        }, { onDelta: () => ac.abort(), signal: ac.signal })
      );
      fake.chunkDelayMs = 0;
      // The stub notices the cancelled stream at its next chunk.
      for (let i = 0; i < 40 && fake.aborted === abortedBefore; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      assertEquals(fake.aborted - abortedBefore, 1);
      const msgs = await listMessages(s.deps.sql, bot.workspace_id, conversation.id);
      assertEquals(msgs.map((m) => m.role), ["visitor"]);
    });
  } finally {
    await s.stop();
    await fake.close();
  }
});
