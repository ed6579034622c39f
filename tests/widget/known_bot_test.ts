/**
 * A visitor's first message to a bot the server read before starts its reply
 * from that copy, before the database answers (domain/widget/known_bots.ts).
 * The copy must never change what the visitor gets: a reply follows the bot
 * as it is now, a deactivated bot is refused, and a blocked visitor never
 * reaches the AI, not even for a call cancelled at once.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { postStream, WIDGET_ENV } from "./widget_client.ts";

const KEY = "acme-helper";
const OWNER_PORTAL = T.acme.owner.portal;
const OWNER_AGENT = T.acme.owner.agent;
let seq = 0;
const newVisitor = () => `v_known_${++seq}_${crypto.randomUUID().slice(0, 8)}`;

Deno.test("widget: replies started from a kept copy of the bot", serverTestOptions, async (t) => {
  const fake = startFakeAi({ reply: "We are open from nine to five." });
  const s = await startTestServer({
    seed: standardSeed(),
    env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
  });
  const ask = (visitor: string, message = "When are you open?") =>
    postStream(s.url, KEY, { visitor_id: visitor, message });
  const updateBot = (body: Record<string, unknown>) =>
    http(s.url, "PUT", `/api/portal/chatbots/${KEY}`, {
      token: OWNER_PORTAL,
      body: { name: "Acme Helper", ...body },
    });
  const chatCalls = () => fake.requests.filter((r) => r.stream);
  try {
    await t.step("a reply follows instructions changed since the bot was read", async () => {
      assertEquals((await ask(newVisitor())).status, 200); // the server now keeps a copy
      const changed = await updateBot({ instructions: "Sign every answer as Zebra-7." });
      assertEquals(changed.status, 200);
      const before = chatCalls().length;
      const r = await ask(newVisitor());
      assertEquals(r.status, 200);
      assertEquals(r.events.at(-1)!.event, "done");
      const calls = chatCalls().slice(before);
      assertOk(calls.length >= 1);
      // The answer's call carries the new instructions; a call drafted from
      // the old copy (if it went out) was abandoned.
      assertOk(
        calls.at(-1)!.messages[0]!.content.includes("Zebra-7"),
        "the reply used the old bot",
      );
      const text = r.events.filter((e) => e.event === "delta").map((e) => e.data.delta).join("");
      assertEquals(text, "We are open from nine to five.");
    });

    await t.step("a bot deactivated since it was read is 404 and stores nothing", async () => {
      assertEquals((await ask(newVisitor())).status, 200);
      assertEquals((await updateBot({ is_active: false })).status, 200);
      const visitor = newVisitor();
      const r = await ask(visitor);
      assertEquals(r.status, 404);
      assertEquals((await ask(visitor)).status, 404); // and again, read the full way
      assertEquals((await updateBot({ is_active: true })).status, 200);
      const after = await ask(visitor);
      assertEquals(after.status, 200);
    });

    await t.step(
      "a visitor blocked before the bot was read again never reaches the AI",
      async () => {
        const spammer = newVisitor();
        const first = await ask(spammer, "buy my stuff");
        assertEquals(first.status, 200);
        const id = first.events[0]!.data.conversation_id;
        const blocked = await http(s.url, "POST", `/api/agent/conversations/${id}/block`, {
          token: OWNER_AGENT,
          body: { blocked: true },
        });
        assertEquals(blocked.status, 200);
        // Another visitor's message reads the bot again: the copy now lists the block.
        assertEquals((await ask(newVisitor())).status, 200);
        const calls = fake.requests.length;
        const refused = await ask(spammer, "buy my stuff again");
        assertEquals(refused.status, 403);
        assertEquals(fake.requests.length, calls, "no provider call for a blocked visitor");
        // Unblocked, the visitor is answered again.
        const unblocked = await http(s.url, "POST", `/api/agent/conversations/${id}/block`, {
          token: OWNER_AGENT,
          body: { blocked: false },
        });
        assertEquals(unblocked.status, 200);
        assertEquals((await ask(spammer, "sorry")).status, 200);
      },
    );
  } finally {
    await s.stop();
    await fake.close();
  }
});
