// deno-lint-ignore-file no-explicit-any
/**
 * Asking for a human when nobody is there: the handoff answer says whether
 * any agent is connected (presence on the workspace channel), the visitor may
 * leave an e-mail address that agents then see, and the AI keeps answering.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { pusherClient, subscribe } from "./pusher_helpers.ts";

Deno.test("realtime: handoff when no agent is online", serverTestOptions, async (t) => {
  const fake = startFakeAi({ reply: "Happy to help." });
  const s = await startTestServer({
    seed: standardSeed(),
    env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
  });
  const token = T.acme.agent.agent;
  const me = (await http(s.url, "GET", "/api/agent/me", { token })).body;
  const start = await postStream(s.url, "acme-helper", { visitor_id: "v_off", message: "Hi" });
  const id = start.events[0]!.data.conversation_id as string;
  const handoff = (body: Record<string, unknown> = {}) =>
    http(s.url, "POST", "/widget/acme-helper/handoff", {
      headers: freshIp(),
      body: { visitor_id: "v_off", conversation_id: id, ...body },
    });
  const agent = pusherClient(s, { token });

  try {
    await t.step("nobody connected: agents_online is false", async () => {
      const r = await handoff();
      assertEquals(r.status, 200);
      assertEquals(r.body.handoff_state, "handoff_pending");
      assertEquals(r.body.agents_online, false);
    });

    await t.step("the e-mail left is stored and shown to agents", async () => {
      const ws = await subscribe(agent, `private-workspace.${me.company.id}`);
      assertOk(ws.ok);
      const updated = new Promise<any>((resolve) =>
        ws.channel.bind("conversation.updated", (d: any) => resolve(d))
      );
      const r = await handoff({ email: "Visitor@Example.com" });
      assertEquals(r.status, 200);
      const row = await updated;
      assertEquals(row.id, id);
      assertEquals(row.email, "visitor@example.com");
      assertEquals(row.reason, "visitor_email");
      const view = await http(s.url, "GET", `/api/agent/conversations/${id}`, { token });
      assertEquals(view.body.active.email, "visitor@example.com");
    });

    await t.step("a bad address is a 422 naming the field", async () => {
      const r = await handoff({ email: "not-an-address" });
      assertEquals(r.status, 422);
      assertOk(r.body.errors.email);
    });

    await t.step("the AI keeps helping meanwhile", async () => {
      const r = await postStream(s.url, "acme-helper", {
        visitor_id: "v_off",
        conversation_id: id,
        message: "Anyone?",
      });
      assertEquals(r.events.at(-1)!.data.source, "ai");
    });

    await t.step("an agent on the presence channel: agents_online is true", async () => {
      const p = await subscribe(agent, `presence-workspace.${me.company.id}`);
      assertOk(p.ok);
      assertEquals((await handoff()).body.agents_online, true);
      agent.unsubscribe(`presence-workspace.${me.company.id}`);
      await new Promise((r) => setTimeout(r, 100));
      assertEquals((await handoff()).body.agents_online, false);
    });
  } finally {
    agent.disconnect();
    await s.stop();
    await fake.close();
  }
});
