/**
 * Screen sharing over HTTP and the real pusher-js client (branding
 * `screen_share`, docs/realtime.md): who may join `private-screen.{uuid}`
 * (the conversation's workspace's agents only: not an agent of another
 * workspace, not a viewer, not a visitor, not a forged or borrowed
 * signature), the consent flow (nothing relayed before the visitor accepts),
 * the visitor's and the agent's stop, the end with the conversation, and the
 * limits on what the visitor sends (413, 422, 409).
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { type Channel, connected, nextEvent, pusherClient, subscribe } from "./pusher_helpers.ts";

interface ShareEvent {
  conversation_id: string;
  screen_share: { id: number; state: string; ended_by?: string | null };
  resync?: boolean;
}

Deno.test("screen share: channel authorisation, consent, limits", serverTestOptions, async (t) => {
  const fake = startFakeAi({ reply: "Happy to help." });
  const s = await startTestServer({
    seed: standardSeed(),
    env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
  });
  const agent = T.acme.agent.agent;
  const setFlag = async (on: boolean) => {
    await s.deps.sql`
      UPDATE chatbots SET branding = branding || ${s.deps.sql.json({ screen_share: on })}
       WHERE public_key = 'acme-helper'`;
  };
  const open = async (visitor: string, key = "acme-helper") => {
    const r = await postStream(s.url, key, { visitor_id: visitor, message: "Hi" });
    assertEquals(r.status, 200);
    return r.events[0]!.data.conversation_id as string;
  };
  const convA = await open("v_screen_a");
  const convB = await open("v_screen_b");
  const convG = await open("v_screen_g", "globex-bot");
  const auth = (token: string | undefined, channel: string, socketId = "1.2") =>
    http(s.url, "POST", "/api/agent/broadcasting/auth", {
      ...(token ? { token } : {}),
      body: { socket_id: socketId, channel_name: channel },
    });
  const widget = (path: string, body: Record<string, unknown>) =>
    http(s.url, "POST", `/widget/acme-helper${path}`, { body, headers: freshIp() });
  const answer = (conversation: string, visitor: string, action: string) =>
    widget("/screen-share", { visitor_id: visitor, conversation_id: conversation, action });
  const send = (conversation: string, visitor: string, events: unknown[]) =>
    widget("/screen-share/events", { visitor_id: visitor, conversation_id: conversation, events });
  const request = (conversation: string, token = agent) =>
    http(s.url, "POST", `/api/agent/conversations/${conversation}/screen-share`, { token });
  const sample = [
    JSON.stringify({ type: 4, timestamp: Date.now(), data: { href: "https://shop.test/" } }),
  ];
  const clients: { disconnect(): void }[] = [];
  const client = (opts: Parameters<typeof pusherClient>[1] = {}) => {
    const c = pusherClient(s, opts);
    clients.push(c);
    return c;
  };

  try {
    await t.step("off: the inbox is offered nothing and the server refuses", async () => {
      await setFlag(false);
      const r = await request(convA);
      assertEquals(r.status, 403);
      assertEquals(
        r.body.message,
        "Screen sharing is turned off for this conversation's bot " +
          "(branding screen_share).",
      );
      assertEquals((await auth(agent, `private-screen.${convA}`)).status, 403);
      const status = await http(s.url, "GET", `/api/agent/conversations/${convA}/screen-share`, {
        token: agent,
      });
      assertEquals(status.body, { enabled: false, screen_share: null });
      const active = await http(s.url, "GET", `/api/agent/conversations/${convA}`, {
        token: agent,
      });
      assertEquals(active.body.active.screen_share, false);
      const beat = await widget("/heartbeat", {
        visitor_id: "v_screen_a",
        conversation_id: convA,
        chat_open: false,
      });
      assertEquals(beat.body.conversation.screen_share, null);
      await setFlag(true);
    });

    await t.step("only that workspace's agents may join the screen channel", async () => {
      const channel = `private-screen.${convA}`;
      assertEquals((await auth(agent, channel)).status, 200);
      assertEquals((await auth(T.acme.owner.agent, channel)).status, 200);
      // An agent of another workspace, a viewer, no token at all.
      const globex = await auth(T.globex.owner.agent, channel);
      assertEquals(globex.status, 403);
      assertEquals(globex.body, { message: "You are not allowed on this channel." });
      assertEquals((await auth(T.acme.viewer.agent, channel)).status, 403);
      assertEquals((await auth(undefined, channel)).status, 401);
      // Globex's own conversation's screen channel is not Acme's to join, nor the reverse.
      assertEquals((await auth(agent, `private-screen.${convG}`)).status, 403);
      assertEquals((await auth(agent, `private-screen.${crypto.randomUUID()}`)).status, 403);

      // Through the socket: pusher-js as the other workspace's agent is refused…
      const foreign = await subscribe(client({ token: T.globex.owner.agent }), channel);
      assertOk(!foreign.ok, "an agent of another workspace cannot join");
      assertEquals((foreign.error as { status: number }).status, 403);
      // …as a visitor (no agent token) too…
      const visitor = await subscribe(client({}), channel);
      assertOk(!visitor.ok, "a visitor cannot join");
      // …and a signature made for another socket opens nothing.
      const borrowed = (await auth(agent, channel, "1.1")).body.auth as string;
      const forged = await subscribe(client({ authorizer: () => ({ auth: borrowed }) }), channel);
      assertOk(!forged.ok, "a borrowed signature is refused");
      assertEquals((forged.error as { status: number }).status, 401);
      // The public widget-style name does not exist for screens.
      const guess = await subscribe(client({}), `conversation-screen.${convA}`);
      assertOk(!guess.ok);
    });

    let screen: Channel;
    let widgetChannel: Channel;
    await t.step("the request reaches the widget; nothing is relayed before consent", async () => {
      const agentClient = client({ token: agent });
      await connected(agentClient);
      const joined = await subscribe(agentClient, `private-screen.${convA}`);
      assertOk(joined.ok);
      screen = joined.channel;
      const hb = await widget("/heartbeat", {
        visitor_id: "v_screen_a",
        conversation_id: convA,
        chat_open: true,
      });
      const name = hb.body.conversation.realtime_channel as string;
      const w = await subscribe(client({}), name);
      assertOk(w.ok);
      widgetChannel = w.channel;

      const asked = nextEvent<ShareEvent>(widgetChannel, "screen_share.updated");
      const r = await request(convA);
      assertEquals(r.status, 200);
      assertEquals(r.body.screen_share.state, "requested");
      const heard = await asked;
      assertEquals(heard.screen_share, { id: r.body.screen_share.id, state: "requested" });
      assertEquals(heard.resync, false);
      // The heartbeat says so too, for a widget whose socket missed it.
      const beat = await widget("/heartbeat", {
        visitor_id: "v_screen_a",
        conversation_id: convA,
        chat_open: false,
      });
      assertEquals(beat.body.conversation.screen_share, {
        id: r.body.screen_share.id,
        state: "requested",
      });

      const early = await send(convA, "v_screen_a", sample);
      assertEquals(early.status, 409);
      assertEquals(early.body.message, "Screen sharing is not active in this conversation.");
    });

    await t.step("another visitor can neither answer nor send for this conversation", async () => {
      assertEquals((await answer(convA, "v_screen_b", "accept")).status, 404);
      assertEquals((await send(convA, "v_screen_b", sample)).status, 404);
      // Nor can they accept their own conversation, where nobody asked.
      const none = await answer(convB, "v_screen_b", "accept");
      assertEquals(none.status, 409);
    });

    await t.step("accepted: the agents hear the state, then the page", async () => {
      const started = nextEvent<ShareEvent>(screen, "screen_share.updated");
      const ok = await answer(convA, "v_screen_a", "accept");
      assertEquals(ok.status, 200);
      assertEquals(ok.body.screen_share.state, "active");
      assertEquals((await started).screen_share.state, "active");
      // A second tab accepting the same request would mix two pages: refused.
      const again = await answer(convA, "v_screen_a", "accept");
      assertEquals(again.status, 409);
      assertEquals(
        again.body.message,
        "This conversation's screen is already shared from another tab.",
      );
      const page = nextEvent<{ events: unknown[]; screen_share_id: number }>(
        screen,
        "screen_share.events",
      );
      const sent = await send(convA, "v_screen_a", sample);
      assertEquals(sent.status, 200);
      assertEquals(sent.body, { accepted: 1 });
      assertEquals((await page).events, sample);
      // The agent asking again while sharing asks the widget for a fresh full view.
      const resync = nextEvent<ShareEvent>(widgetChannel, "screen_share.updated");
      assertEquals((await request(convA)).body.screen_share.state, "active");
      assertEquals((await resync).resync, true);
    });

    await t.step("oversized or malformed batches are refused clearly", async () => {
      const big = [
        JSON.stringify({ type: 2, timestamp: 1, data: { text: "x".repeat(600 * 1024) } }),
      ];
      const r = await send(convA, "v_screen_a", big);
      assertEquals(r.status, 413);
      assertEquals(
        r.body.message,
        "The request body is too large: this route accepts at most 524,288 bytes.",
      );
      const many = Array.from(
        { length: 2001 },
        (_, i) => JSON.stringify({ type: 3, timestamp: i }),
      );
      const tooMany = await send(convA, "v_screen_a", many);
      assertEquals(tooMany.status, 422);
      assertOk(tooMany.body.errors.events, JSON.stringify(tooMany.body));
      const bad = await send(convA, "v_screen_a", [{ type: 3, timestamp: 1 }]);
      assertEquals(bad.status, 422);
      const notJson = await send(convA, "v_screen_a", ["<p>hello</p>"]);
      assertEquals(notJson.status, 422);
      assertEquals(notJson.body.errors["events.0"], [
        "Each event must be one rrweb event, as JSON object text.",
      ]);
    });

    await t.step("more than 240 batches a minute from one address: 429", async () => {
      const ip = freshIp();
      const body = { visitor_id: "v_screen_a", conversation_id: convA, events: sample };
      const statuses: number[] = [];
      for (let i = 0; i < 241; i++) {
        const r = await http(s.url, "POST", "/widget/acme-helper/screen-share/events", {
          body,
          headers: ip,
        });
        statuses.push(r.status);
      }
      assertEquals(statuses.slice(0, 240).every((st) => st === 200), true);
      assertEquals(statuses[240], 429);
    });

    await t.step("agents cannot write on the screen channel", async () => {
      const c = client({ token: agent });
      const joined = await subscribe(c, `private-screen.${convA}`);
      assertOk(joined.ok);
      const refused = nextEvent<{ message: string }>(c.connection, "error").catch(() => null);
      joined.channel.trigger("client-snapshot", { fake: true });
      const err = await refused;
      assertOk(err !== null, "pusher:error for a client event on a screen channel");
    });

    await t.step("the visitor stops; further events are refused", async () => {
      const ended = nextEvent<ShareEvent>(screen, "screen_share.updated");
      const r = await answer(convA, "v_screen_a", "stop");
      assertEquals(r.body.screen_share.state, "ended");
      const heard = await ended;
      assertEquals(heard.screen_share.state, "ended");
      assertEquals(heard.screen_share.ended_by, "visitor");
      assertEquals((await send(convA, "v_screen_a", sample)).status, 409);
    });

    await t.step("the agent stops, and a declined request ends too", async () => {
      await request(convA);
      const declined = await answer(convA, "v_screen_a", "decline");
      assertEquals(declined.body.screen_share.state, "declined");
      await request(convA);
      await answer(convA, "v_screen_a", "accept");
      const toWidget = nextEvent<ShareEvent>(widgetChannel, "screen_share.updated");
      const stop = await http(
        s.url,
        "POST",
        `/api/agent/conversations/${convA}/screen-share/stop`,
        {
          token: agent,
        },
      );
      assertEquals(stop.body.screen_share.state, "ended");
      assertEquals(stop.body.screen_share.ended_by, "agent");
      assertEquals((await toWidget).screen_share.state, "ended");
    });

    await t.step("closing the conversation ends the share", async () => {
      await request(convA);
      await answer(convA, "v_screen_a", "accept");
      const ended = nextEvent<ShareEvent>(widgetChannel, "screen_share.updated");
      const resolved = await http(s.url, "POST", `/api/agent/conversations/${convA}/resolve`, {
        token: agent,
        body: {},
      });
      assertEquals(resolved.status, 200);
      assertEquals((await ended).screen_share.state, "ended");
      const status = await http(s.url, "GET", `/api/agent/conversations/${convA}/screen-share`, {
        token: agent,
      });
      assertEquals(status.body.screen_share.ended_by, "closed");
      assertEquals((await send(convA, "v_screen_a", sample)).status, 409);
      assertEquals((await request(convA)).status, 409);
    });
  } finally {
    for (const c of clients) c.disconnect();
    await s.stop();
    await fake.close();
  }
});
