// deno-lint-ignore-file no-explicit-any
/**
 * Two instances on one PostgreSQL and one Redis behave as one: instance A runs
 * in this process, instance B is a separate `deno run main.ts` process. A
 * reply sent through A reaches pusher-js clients (an agent's and a widget's)
 * connected to B; presence on B lists the agents connected to A; typing
 * crosses; a handoff on B knows an agent is online on A; a visitor's shared
 * page posted to A reaches an agent's screen viewer on B.
 *
 * Needs DATABASE_URL and REDIS_URL: the embedded database belongs to one
 * process, so on the embedded backend this test is skipped (ignored).
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, PASSWORD, standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { startSecondInstance } from "../helpers/second_instance.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { nextEvent, pusherClient, subscribe } from "./pusher_helpers.ts";

const shared = Boolean(Deno.env.get("DATABASE_URL") && Deno.env.get("REDIS_URL"));
if (!shared) {
  console.log(
    "two_instances_test: skipped on the embedded backend (one process owns PGlite); " +
      "set DATABASE_URL and REDIS_URL to run it.",
  );
}

Deno.test({
  name: "realtime: two instances on one PostgreSQL and Redis behave as one",
  ignore: !shared,
  ...serverTestOptions,
  fn: async (t) => {
    const fake = startFakeAi({ reply: "Happy to help." });
    const a = await startTestServer({
      seed: standardSeed(),
      env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
    });
    const b = await startSecondInstance(a.env);
    const agentToken = T.acme.agent.agent;
    const me = (await http(a.url, "GET", "/api/agent/me", { token: agentToken })).body;
    const owner = (await http(a.url, "GET", "/api/agent/me", { token: T.acme.owner.agent })).body;
    const onB = pusherClient(b, { token: agentToken });
    const widgetOnB = pusherClient(b);
    const onA = pusherClient(a, { token: T.acme.owner.agent });
    const presence = `presence-workspace.${me.company.id}`;
    try {
      const start = await postStream(a.url, "acme-helper", { visitor_id: "v_two", message: "Hi" });
      const id = start.events[0]!.data.conversation_id as string;

      await t.step("presence on B lists the agent connected to A", async () => {
        const pb = await subscribe(onB, presence);
        assertOk(pb.ok);
        const added = nextEvent<{ id: string; info: unknown }>(pb.channel, "pusher:member_added");
        const pa = await subscribe(onA, presence);
        assertOk(pa.ok);
        const m = await added;
        assertEquals(m.id, String(owner.user.id));
        assertEquals(m.info, { name: "Ada Owner", avatar: null });
        // And A's subscriber was told about B's agent when it joined.
        const ids: string[] = [];
        (pa.data as { each(fn: (m: { id: string }) => void): void }).each((x) => ids.push(x.id));
        assertEquals(ids.sort(), [String(me.user.id), String(owner.user.id)].sort());
      });

      await t.step("a handoff through B knows an agent is online on A", async () => {
        onB.unsubscribe(presence);
        await new Promise((r) => setTimeout(r, 200));
        const r = await http(b.url, "POST", "/widget/acme-helper/handoff", {
          headers: freshIp(),
          body: { visitor_id: "v_two", conversation_id: id },
        });
        assertEquals(r.body.agents_online, true);
      });

      await t.step("a reply through A reaches agent and widget sockets on B", async () => {
        const cb = await subscribe(onB, `private-conversation.${id}`);
        assertOk(cb.ok);
        const hb = await http(b.url, "POST", "/widget/acme-helper/heartbeat", {
          headers: freshIp(),
          body: { visitor_id: "v_two", conversation_id: id, chat_open: true },
        });
        const wb = await subscribe(widgetOnB, hb.body.conversation.realtime_channel);
        assertOk(wb.ok);
        const toAgent = nextEvent<any>(cb.channel, "message.created");
        const toWidget = nextEvent<any>(wb.channel, "message.created");
        const r = await http(a.url, "POST", `/api/agent/conversations/${id}/reply`, {
          token: T.acme.owner.agent,
          body: { body: "Hello from instance A." },
        });
        assertEquals(r.status, 200);
        assertEquals((await toAgent).message.id, r.body.message.id);
        assertEquals((await toWidget).message.content, "Hello from instance A.");
      });

      await t.step("typing on A reaches B", async () => {
        const ca = await subscribe(onA, `private-conversation.${id}`);
        assertOk(ca.ok);
        const cb = onB.subscribe(`private-conversation.${id}`);
        const heard = nextEvent(cb, "client-typing");
        ca.channel.trigger("client-typing", { typing: true, name: "Ada" });
        assertEquals(await heard, { typing: true, name: "Ada" });
      });

      await t.step(
        "a visitor's shared page posted to A reaches the agent's viewer on B",
        async () => {
          await a.deps.sql`
          UPDATE chatbots SET branding = branding || '{"screen_share": true}'::jsonb
           WHERE public_key = 'acme-helper'`;
          const screen = await subscribe(onB, `private-screen.${id}`);
          assertOk(screen.ok);
          const started = nextEvent<any>(screen.channel, "screen_share.updated");
          await http(b.url, "POST", `/api/agent/conversations/${id}/screen-share`, {
            token: agentToken,
          });
          const body = { visitor_id: "v_two", conversation_id: id };
          const ok = await http(a.url, "POST", "/widget/acme-helper/screen-share", {
            headers: freshIp(),
            body: { ...body, action: "accept" },
          });
          assertEquals(ok.body.screen_share.state, "active");
          assertEquals((await started).screen_share.state, "requested");
          const page = nextEvent<any>(screen.channel, "screen_share.events");
          const events = [
            JSON.stringify({ type: 4, timestamp: 1, data: { href: "https://x.test/" } }),
          ];
          const sent = await http(a.url, "POST", "/widget/acme-helper/screen-share/events", {
            headers: freshIp(),
            body: { ...body, events },
          });
          assertEquals(sent.status, 200);
          assertEquals((await page).events, events);
        },
      );

      await t.step("the agent leaving A is removed from presence on B", async () => {
        const pb = await subscribe(onB, presence);
        assertOk(pb.ok);
        const removed = nextEvent<{ id: string }>(pb.channel, "pusher:member_removed");
        onA.disconnect();
        assertEquals((await removed).id, String(owner.user.id));
      });

      await t.step("signing out through A ends the token's channels on B", async () => {
        const login = await http(a.url, "POST", "/api/agent/login", {
          body: { email: EMAIL.acmeAgent, password: PASSWORD, device_name: "Phone" },
          headers: freshIp(),
        });
        assertEquals(login.status, 200, login.text);
        const phone = pusherClient(b, { token: login.body.token });
        try {
          const sub = await subscribe(phone, `private-conversation.${id}`);
          assertOk(sub.ok);
          const ended = nextEvent<any>(sub.channel, "pusher:subscription_error", 8000);
          let heard = 0;
          sub.channel.bind("message.created", () => heard++);
          const out = await http(a.url, "POST", "/api/agent/logout", { token: login.body.token });
          assertEquals(out.status, 200);
          assertEquals((await ended).status, 401);
          // The owner's app on B (subscribed above) still hears the conversation.
          const stillHeard = nextEvent<any>(
            onB.subscribe(`private-conversation.${id}`),
            "message.created",
          );
          await http(a.url, "POST", `/api/agent/conversations/${id}/reply`, {
            token: T.acme.owner.agent,
            body: { body: "After the sign-out." },
          });
          await stillHeard;
          await new Promise((r) => setTimeout(r, 300));
          assertEquals(heard, 0);
        } finally {
          phone.disconnect();
        }
      });
    } finally {
      onB.disconnect();
      widgetOnB.disconnect();
      onA.disconnect();
      await b.stop();
      await a.stop();
      await fake.close();
    }
  },
});
