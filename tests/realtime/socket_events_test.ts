// deno-lint-ignore-file no-explicit-any
/**
 * Every documented broadcast (docs/realtime.md) reaches a subscribed pusher-js
 * client with its payload, driven through the public API only: a visitor's
 * first message, the AI reply, the heartbeat, a handoff request, an agent's
 * reply, note and assignment; typing crosses between an agent and the
 * widget; a widget hears its own conversation and nothing of the agents'.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { type Channel, nextEvent, pusherClient, subscribe } from "./pusher_helpers.ts";

const ISO_OFFSET = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;
const TIME_OF_DAY = /^\d{1,2}:\d\d/;

/** Collects every event of a channel, so a step can wait for the one it needs. */
function recorder(ch: Channel) {
  const seen: { event: string; data: any }[] = [];
  const waiters: (() => void)[] = [];
  ch.bind_global((event: string, data: unknown) => {
    seen.push({ event, data });
    for (const w of waiters.splice(0)) w();
  });
  return {
    seen,
    async next(event: string, match: (d: any) => boolean = () => true, ms = 5000) {
      const deadline = Date.now() + ms;
      while (true) {
        const i = seen.findIndex((e) => e.event === event && match(e.data));
        if (i >= 0) return seen.splice(i, 1)[0]!.data;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no ${event} on ${ch.name}: saw ${JSON.stringify(seen)}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, left);
        });
      }
    },
  };
}

Deno.test(
  "realtime: events reach subscribers with their payloads",
  serverTestOptions,
  async (t) => {
    const fake = startFakeAi({ reply: "Happy to help." });
    const s = await startTestServer({
      seed: standardSeed(),
      env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
    });
    const token = T.acme.agent.agent;
    const me = (await http(s.url, "GET", "/api/agent/me", { token })).body;
    const agent = pusherClient(s, { token });
    const widgetClient = pusherClient(s);
    const ws = await subscribe(agent, `private-workspace.${me.company.id}`);
    const us = await subscribe(agent, `private-user.${me.user.id}`);
    assertOk(ws.ok && us.ok);
    const workspace = recorder(ws.channel);
    const user = recorder(us.channel);
    let conversationId = "";
    let conv: ReturnType<typeof recorder>;
    let widget: ReturnType<typeof recorder>;
    let widgetChannel: Channel;
    let agentConvChannel: Channel;

    try {
      await t.step(
        "a visitor's first message: conversation.created and message.created",
        async () => {
          const r = await postStream(s.url, "acme-helper", {
            visitor_id: "v_ev",
            message: "Hello!",
          });
          conversationId = r.events[0]!.data.conversation_id;
          const created = await workspace.next("conversation.created");
          assertEquals(created.id, conversationId);
          assertEquals(created.status, "bot");
          assertEquals(created.chatbot, "Acme Helper");
          assertEquals(created.mine, false);
          assertOk("group" in created && "tags" in created);
          // No viewer: every visitor message is unread (the conversation's count, migration 0290).
          assertEquals(created.unread, 1);
          const visitorMsg = await workspace.next(
            "message.created",
            (d) => d.message.role === "visitor",
          );
          assertEquals(visitorMsg.conversation_id, conversationId);
          assertEquals(visitorMsg.message.content, "Hello!");
          assertOk(TIME_OF_DAY.test(visitorMsg.message.at), visitorMsg.message.at);
          // The AI's streamed reply, once complete.
          const ai = await workspace.next("message.created", (d) => d.message.role === "assistant");
          assertEquals(ai.message.content, "Happy to help.");
          const cs = await subscribe(agent, `private-conversation.${conversationId}`);
          assertOk(cs.ok);
          agentConvChannel = cs.channel;
          conv = recorder(cs.channel);
        },
      );

      await t.step("the heartbeat: visitor.seen; the widget joins its channel", async () => {
        const hb = await http(s.url, "POST", "/widget/acme-helper/heartbeat", {
          headers: freshIp(),
          body: { visitor_id: "v_ev", conversation_id: conversationId, chat_open: true },
        });
        const seen = await workspace.next("visitor.seen", (d) => d.visitor_id === "v_ev");
        assertEquals(seen.chat_open, true);
        assertEquals(typeof seen.chatbot_id, "number");
        const sub = await subscribe(widgetClient, hb.body.conversation.realtime_channel);
        assertOk(sub.ok);
        widgetChannel = sub.channel;
        widget = recorder(sub.channel);
      });

      await t.step(
        "a handoff request: handoff.requested, the row, the widget's state",
        async () => {
          await http(s.url, "POST", "/widget/acme-helper/handoff", {
            headers: freshIp(),
            body: { visitor_id: "v_ev", conversation_id: conversationId },
          });
          const h = await workspace.next("handoff.requested");
          assertEquals(h.conversation_id, conversationId);
          const row = await workspace.next(
            "conversation.updated",
            (d) => d.reason === "handoff_requested",
          );
          assertEquals(row.handoff_state, "handoff_pending");
          assertEquals(row.escalated, true);
          const state = await widget.next("conversation.updated");
          assertEquals(state, {
            conversation_id: conversationId,
            status: "bot",
            handoff_state: "handoff_pending",
          });
        },
      );

      await t.step("an agent's reply: to the agents' channels and to the widget", async () => {
        const r = await http(s.url, "POST", `/api/agent/conversations/${conversationId}/reply`, {
          token,
          body: { body: "Hi, Amy here." },
        });
        assertEquals(r.status, 200);
        const m = await conv.next("message.created", (d) => d.message.role === "agent");
        assertEquals(m.message, { ...r.body.message, at: m.message.at });
        assertOk(TIME_OF_DAY.test(m.message.at));
        const row = await conv.next("conversation.updated", (d) => d.reason === "reply");
        assertEquals(row.status, "agent");
        assertEquals(row.assigned_user_id, me.user.id);
        assertEquals(row.assigned_to, "Amy Agent");
        const w = await widget.next("message.created");
        assertEquals(w.conversation_id, conversationId);
        assertEquals(w.message.id, r.body.message.id);
        assertEquals(w.message.role, "agent");
        assertEquals(w.message.content, "Hi, Amy here.");
        assertOk(ISO_OFFSET.test(w.message.at), w.message.at);
        const state = await widget.next("conversation.updated");
        assertEquals(state.handoff_state, "human_connected");
        // The widget never hears the visitor's or the AI's messages, nor any row.
        assertOk(widget.seen.every((e) => e.event !== "message.created"));
      });

      await t.step("a note: note.created on the conversation channel only", async () => {
        const r = await http(s.url, "POST", `/api/agent/conversations/${conversationId}/notes`, {
          token,
          body: { body: "Customer is a VIP." },
        });
        assertEquals(r.status, 200);
        const n = await conv.next("note.created");
        assertEquals(n.conversation_id, conversationId);
        assertEquals(n.note.id, r.body.note.id);
        assertEquals(n.note.body, "Customer is a VIP.");
        assertEquals(n.note.author, "Amy Agent");
        await new Promise((r) => setTimeout(r, 100));
        assertOk(
          widget.seen.every((e) => e.event !== "note.created"),
          "notes never reach visitors",
        );
      });

      await t.step("an assignment: conversation.assigned on the assignee's channel", async () => {
        const owner = (await http(s.url, "GET", "/api/agent/me", { token: T.acme.owner.agent }))
          .body;
        const assign = (userId: number | null) =>
          http(s.url, "POST", `/api/agent/conversations/${conversationId}/assign`, {
            token: T.acme.owner.agent,
            body: { user_id: userId },
          });
        // The agent's reply made it theirs: back to the team, then to the agent again.
        assertEquals((await assign(null)).status, 200);
        assertEquals((await assign(me.user.id)).status, 200);
        const a = await user.next("conversation.assigned");
        assertEquals(a, { conversation_id: conversationId, by_user_id: owner.user.id });
        // Assigning it to its assignee again changes nothing, and says nothing.
        assertEquals((await assign(me.user.id)).status, 200);
        await new Promise((r) => setTimeout(r, 150));
        assertEquals(user.seen.filter((e) => e.event === "conversation.assigned"), []);
      });

      await t.step("typing crosses between the agent and the widget", async () => {
        const toWidget = nextEvent(widgetChannel, "client-typing");
        agentConvChannel.trigger("client-typing", { typing: true, name: "Amy", secret: "x" });
        assertEquals(await toWidget, { role: "agent", typing: true, name: "Amy" });
        const toAgent = nextEvent(agentConvChannel, "client-typing");
        widgetChannel.trigger("client-typing", { typing: true, anything: "else" });
        assertEquals(await toAgent, { role: "visitor", typing: true });
        // Any other client event from the widget is refused.
        const refused = nextEvent<{ message: string }>(widgetClient.connection, "error");
        widgetChannel.trigger("client-message", { text: "spoof" });
        const e = await refused as unknown as { data: { message: string } };
        assertOk(JSON.stringify(e).includes("private and presence"), JSON.stringify(e));
      });
    } finally {
      agent.disconnect();
      widgetClient.disconnect();
      await s.stop();
      await fake.close();
    }
  },
);
