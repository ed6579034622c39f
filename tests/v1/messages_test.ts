/**
 * POST /api/v1/chatbots/{key}/messages: the reply shape, what reaches the
 * provider's prompt, continuing and reopening conversations, human-owned
 * conversations, foreign ids and validation.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { findConversationByPublicId } from "../../db/conversations.ts";
import { listMessages } from "../../db/messages.ts";
import { applyTransition } from "../../domain/conversations/state_machine.ts";

const PATH = "/api/v1/chatbots/acme-helper/messages";
const owner = T.acme.owner.api;

Deno.test("v1 messages", serverTestOptions, async (t) => {
  const fake = startFakeAi({ reply: "We ship worldwide within 5 business days." });
  const s = await startTestServer({ seed: standardSeed(), env: { AI_BASE_URL: fake.baseUrl } });
  const send = (body: Record<string, unknown>, token: string = owner, path = PATH) =>
    http(s.url, "POST", path, { token, body });
  const acmeId = async () =>
    (await http(s.url, "GET", "/api/v1/me", { token: owner })).body.company.id;
  try {
    let conversationId = "";

    await t.step(
      "a visitor message gets the full AI reply with model and token usage",
      async () => {
        const r = await send({ message: "How long does shipping take?", visitor_id: "v-1" });
        assertEquals(r.status, 200, r.text);
        assertMatch(r.body.conversation_id, /^[0-9a-f-]{36}$/);
        assertEquals(r.body.status, "bot");
        assertEquals(r.body.reply.content, "We ship worldwide within 5 business days.");
        assertEquals(r.body.reply.model, "gpt-4o-mini");
        assertOk(r.body.reply.tokens_in > 0 && r.body.reply.tokens_out > 0);
        assertEquals(Object.keys(r.body).sort(), ["conversation_id", "reply", "status"]);
        assertEquals(Object.keys(r.body.reply).sort(), [
          "content",
          "id",
          "model",
          "tokens_in",
          "tokens_out",
        ]);
        conversationId = r.body.conversation_id;
      },
    );

    await t.step(
      "the provider gets the workspace key, persona and the relevant knowledge only",
      () => {
        const req = fake.requests.at(-1)!;
        assertEquals(req.authorization, "Bearer sk-acme-test-key-1234");
        assertEquals(req.model, "gpt-4o-mini");
        const system = req.messages[0]!;
        assertEquals(system.role, "system");
        assertMatch(system.content, /cheerful support assistant/);
        assertMatch(system.content, /Answer only from the knowledge provided/);
        assertMatch(system.content, /Shipping policy/);
        assertMatch(system.content, /Express shipping takes 2 days/);
        assertOk(
          !system.content.includes("Monday to Friday"),
          "unrelated Q&A leaked into the prompt",
        );
        assertOk(!system.content.includes("HAMMOCK"), "another workspace's knowledge leaked");
        assertEquals(req.messages.at(-1), {
          role: "user",
          content: "How long does shipping take?",
        });
      },
    );

    await t.step(
      "quotes and backslashes in a question are searched as words, not as query syntax",
      async () => {
        const r = await send({
          message: "O'Brien's \\ question: how long does shipping' take & | !?",
          visitor_id: "v-quotes",
        });
        assertEquals(r.status, 200, r.text);
        const system = fake.requests.at(-1)!.messages[0]!;
        assertMatch(system.content, /Express shipping takes 2 days/);
      },
    );

    await t.step("the reply stores its sources, tokens, model and cost", async () => {
      const wid = await acmeId();
      const conv = await findConversationByPublicId(s.deps.sql, wid, conversationId);
      const msgs = await listMessages(s.deps.sql, wid, conv!.id);
      assertEquals(msgs.map((m) => m.role), ["visitor", "assistant"]);
      const reply = msgs[1]!;
      assertEquals(reply.sources, [{ title: "Shipping policy", url: null }]);
      assertEquals(reply.model, "gpt-4o-mini");
      assertOk(reply.cost_micro_cents > 0);
    });

    await t.step("continuing a conversation sends its history and keeps the same id", async () => {
      const r = await send({
        message: "When are you open?",
        visitor_id: "v-1",
        conversation_id: conversationId,
        meta: { page: "/pricing" },
      });
      assertEquals(r.status, 200, r.text);
      assertEquals(r.body.conversation_id, conversationId);
      const req = fake.requests.at(-1)!;
      assertEquals(req.messages.slice(1).map((m) => m.role), ["user", "assistant", "user"]);
      assertMatch(req.messages[0]!.content, /Monday to Friday/);
      const conv = await findConversationByPublicId(s.deps.sql, await acmeId(), conversationId);
      assertEquals(conv!.meta, { page: "/pricing" });
    });

    await t.step(
      "a question outside the knowledge reaches the provider with no knowledge",
      async () => {
        await send({ message: "Quelle est la capitale du Pérou ?", visitor_id: "v-2" });
        const system = fake.requests.at(-1)!.messages[0]!.content;
        assertMatch(system, /Nothing in the knowledge base matches/);
        assertMatch(system, /say plainly that you do not know/);
      },
    );

    await t.step(
      "while a human owns the conversation, reply is null and note explains",
      async () => {
        const wid = await acmeId();
        const conv = await findConversationByPublicId(s.deps.sql, wid, conversationId);
        await applyTransition(s.deps.sql, conv!, "takeover", { now: new Date() });
        const before = fake.requests.length;
        const r = await send({
          message: "Hello?",
          visitor_id: "v-1",
          conversation_id: conversationId,
        });
        assertEquals(r.status, 200, r.text);
        assertEquals(r.body.reply, null);
        assertEquals(r.body.status, "agent");
        assertMatch(r.body.note, /human agent/);
        assertEquals(fake.requests.length, before, "the AI must not be called");
      },
    );

    await t.step(
      "a takeover while the AI is thinking: reply null, note, and status agent",
      async () => {
        const wid = await acmeId();
        const first = await send({ message: "Start", visitor_id: "v-race" });
        const id = first.body.conversation_id;
        fake.latencyMs = 400;
        try {
          const pending = send({
            message: "Still there?",
            visitor_id: "v-race",
            conversation_id: id,
          });
          await new Promise((r) => setTimeout(r, 150));
          const conv = await findConversationByPublicId(s.deps.sql, wid, id);
          await applyTransition(s.deps.sql, conv!, "takeover", { now: new Date() });
          const r = await pending;
          assertEquals(r.status, 200, r.text);
          assertEquals(r.body.reply, null);
          assertMatch(r.body.note, /human agent/);
          assertEquals(r.body.status, "agent");
        } finally {
          fake.latencyMs = 0;
        }
      },
    );

    await t.step("a resolved conversation reopens on a new visitor message", async () => {
      const wid = await acmeId();
      const conv = await findConversationByPublicId(s.deps.sql, wid, conversationId);
      const closed = await applyTransition(s.deps.sql, conv!, "resolve", { now: new Date() });
      assertEquals(closed.status, "closed");
      const r = await send({
        message: "One more thing",
        visitor_id: "v-1",
        conversation_id: conversationId,
      });
      assertEquals(r.status, 200, r.text);
      assertEquals(r.body.status, "bot");
      assertOk(r.body.reply !== null);
      const after = await findConversationByPublicId(s.deps.sql, wid, conversationId);
      assertEquals(after!.resolution, null);
    });

    await t.step("a conversation of another workspace or bot is 404", async () => {
      const g = await send(
        { message: "hi", visitor_id: "g-1" },
        T.globex.owner.api,
        "/api/v1/chatbots/globex-bot/messages",
      );
      // Globex stored no provider key; with AI_BASE_URL set none is needed, so it answers.
      assertEquals(g.status, 200, g.text);
      const [globexConv] = await s.deps.sql<{ public_id: string }[]>`
        SELECT public_id FROM conversations c JOIN workspaces w ON w.id = c.workspace_id
         WHERE w.slug = 'globex'`;
      const foreign = await send({
        message: "hi",
        visitor_id: "v-1",
        conversation_id: globexConv!.public_id,
      });
      assertEquals(foreign.status, 404, foreign.text);
      assertEquals(typeof foreign.body.message, "string");
      const otherBot = await send(
        { message: "hi", visitor_id: "v-1", conversation_id: conversationId },
        owner,
        "/api/v1/chatbots/acme-sleeper/messages",
      );
      assertEquals(otherBot.status, 422, "an inactive bot does not answer");
      const unknown = await send({
        message: "hi",
        visitor_id: "v-1",
        conversation_id: crypto.randomUUID(),
      });
      assertEquals(unknown.status, 404);
      const foreignBot = await send(
        { message: "hi", visitor_id: "v" },
        owner,
        "/api/v1/chatbots/globex-bot/messages",
      );
      assertEquals(foreignBot.status, 404);
    });

    await t.step("bad input is 422 naming the field", async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ visitor_id: "v" }, "message"],
        [{ message: "   \n ", visitor_id: "v" }, "message"],
        [{ message: "x".repeat(4001), visitor_id: "v" }, "message"],
        [{ message: "hi" }, "visitor_id"],
        [{ message: "hi", visitor_id: "v".repeat(101) }, "visitor_id"],
        [{ message: "hi", visitor_id: "v", conversation_id: "not-a-uuid" }, "conversation_id"],
        [{ message: "hi", visitor_id: "v", meta: "text" }, "meta"],
        [{ message: 42, visitor_id: "v" }, "message"],
      ];
      for (const [body, field] of cases) {
        const r = await send(body);
        assertEquals(r.status, 422, `${JSON.stringify(body).slice(0, 80)}: ${r.text}`);
        assertEquals(typeof r.body.message, "string");
        assertOk(Array.isArray(r.body.errors[field]), `${field} in ${r.text}`);
      }
    });

    await t.step("permissions: a viewer is 403, an agent may send; no token is 401", async () => {
      const viewer = await send({ message: "hi", visitor_id: "v" }, T.acme.viewer.api);
      assertEquals(viewer.status, 403);
      const agent = await send({ message: "hi", visitor_id: "v" }, T.acme.agent.api);
      assertEquals(agent.status, 200, agent.text);
      const none = await http(s.url, "POST", PATH, { body: { message: "hi", visitor_id: "v" } });
      assertEquals(none.status, 401);
      const suspended = await send(
        { message: "hi", visitor_id: "v" },
        T.suspendedWorkspace.owner.api,
      );
      assertEquals(suspended.status, 403);
    });
  } finally {
    await s.stop();
    await fake.close();
  }
});
