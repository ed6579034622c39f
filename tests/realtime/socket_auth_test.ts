/**
 * The socket server with the real pusher-js client: connect, authorise
 * through broadcasting/auth, subscribe; the refusals (another workspace's
 * channel, another agent's user channel, a foreign conversation, a forged
 * signature, a widget channel with a wrong token); presence lists who is
 * connected; a socket that stops answering pings is dropped; wrong key and
 * protocol get Pusher's codes.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { connected, nextEvent, pusherClient, REALTIME_KEY, subscribe } from "./pusher_helpers.ts";

Deno.test("realtime: connect, authorise, refuse", serverTestOptions, async (t) => {
  const fake = startFakeAi({ reply: "Happy to help." });
  const s = await startTestServer({
    seed: standardSeed(),
    env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl, REALTIME_ACTIVITY_TIMEOUT: "1" },
  });
  const agentToken = T.acme.agent.agent;
  const me = (await http(s.url, "GET", "/api/agent/me", { token: agentToken })).body;
  const owner = (await http(s.url, "GET", "/api/agent/me", { token: T.acme.owner.agent })).body;
  const globex = (await http(s.url, "GET", "/api/agent/me", { token: T.globex.owner.agent })).body;
  const stream = await postStream(s.url, "acme-helper", { visitor_id: "v_auth", message: "Hi" });
  const acmeConversation = stream.events[0]!.data.conversation_id as string;
  const gStream = await postStream(s.url, "globex-bot", { visitor_id: "v_g", message: "Hi" });
  const globexConversation = gStream.events[0]!.data.conversation_id as string;
  const clients: { disconnect(): void }[] = [];
  const client = (opts: Parameters<typeof pusherClient>[1] = {}) => {
    const c = pusherClient(s, opts);
    clients.push(c);
    return c;
  };

  try {
    await t.step("pusher-js connects and gets a socket id", async () => {
      const c = client({ token: agentToken });
      const socketId = await connected(c);
      assertOk(/^\d+\.\d+$/.test(socketId), socketId);
    });

    await t.step("the agent's own channels are signed and joined", async () => {
      const c = client({ token: agentToken });
      for (
        const ch of [
          `private-workspace.${me.company.id}`,
          `private-user.${me.user.id}`,
          `private-conversation.${acmeConversation}`,
        ]
      ) {
        const r = await subscribe(c, ch);
        assertOk(r.ok, `${ch}: ${JSON.stringify(!r.ok && r.error)}`);
      }
    });

    await t.step("broadcasting/auth signs exactly as Pusher does", async () => {
      const r = await http(s.url, "POST", "/api/agent/broadcasting/auth", {
        token: agentToken,
        body: { socket_id: "123.456", channel_name: `private-workspace.${me.company.id}` },
      });
      assertEquals(r.status, 200);
      const secret = await derivedSecret(s.env.APP_KEY!);
      const expected = await hmacHex(secret, `123.456:private-workspace.${me.company.id}`);
      assertEquals(r.body, { auth: `${REALTIME_KEY}:${expected}` });
      // pusher-js posts a form, not JSON.
      const form = await fetch(`${s.url}/api/agent/broadcasting/auth`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${agentToken}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: `socket_id=123.456&channel_name=private-workspace.${me.company.id}`,
      });
      assertEquals(form.status, 200);
      assertEquals((await form.json()).auth, r.body.auth);
    });

    await t.step("refused: another workspace, another user, a foreign conversation", async () => {
      for (
        const ch of [
          `private-workspace.${globex.company.id}`,
          `presence-workspace.${globex.company.id}`,
          `private-user.${owner.user.id}`,
          `private-conversation.${globexConversation}`,
          `private-conversation.${crypto.randomUUID()}`,
          "private-anything",
        ]
      ) {
        const r = await http(s.url, "POST", "/api/agent/broadcasting/auth", {
          token: agentToken,
          body: { socket_id: "1.2", channel_name: ch },
        });
        assertEquals(r.status, 403, ch);
        assertEquals(r.body, { message: "You are not allowed on this channel." });
      }
      const c = client({ token: agentToken });
      const r = await subscribe(c, `private-workspace.${globex.company.id}`);
      assertOk(!r.ok, "pusher-js reports the refusal");
      assertEquals((r.error as { status: number }).status, 403);
    });

    await t.step(
      "broadcasting/auth: 401 without a token, 403 with another ability, 422",
      async () => {
        const body = { socket_id: "1.2", channel_name: `private-workspace.${me.company.id}` };
        const none = await http(s.url, "POST", "/api/agent/broadcasting/auth", { body });
        assertEquals(none.status, 401);
        const api = await http(s.url, "POST", "/api/agent/broadcasting/auth", {
          token: T.acme.agent.api,
          body,
        });
        assertEquals(api.status, 403);
        const bad = await http(s.url, "POST", "/api/agent/broadcasting/auth", {
          token: agentToken,
          body: { socket_id: "nope", channel_name: "" },
        });
        assertEquals(bad.status, 422);
        assertOk(bad.body.errors.socket_id && bad.body.errors.channel_name);
      },
    );

    await t.step("a forged signature is refused by the socket server", async () => {
      const c = client({
        authorizer: (socketId, channel) => ({
          auth: `${REALTIME_KEY}:${"0".repeat(64)}`,
          channel_data: `${socketId}${channel}`.slice(0, 0),
        }),
      });
      const r = await subscribe(c, `private-workspace.${me.company.id}`);
      assertOk(!r.ok);
      assertEquals((r.error as { status: number }).status, 401);
      // A signature for another socket is no better.
      const real = await http(s.url, "POST", "/api/agent/broadcasting/auth", {
        token: agentToken,
        body: { socket_id: "1.1", channel_name: `private-workspace.${me.company.id}` },
      });
      const c2 = client({ authorizer: () => ({ auth: real.body.auth }) });
      const r2 = await subscribe(c2, `private-workspace.${me.company.id}`);
      assertOk(!r2.ok);
    });

    await t.step("a widget channel needs its conversation's token", async () => {
      const hb = await http(s.url, "POST", "/widget/acme-helper/heartbeat", {
        headers: freshIp(),
        body: { visitor_id: "v_auth", conversation_id: acmeConversation, chat_open: true },
      });
      const channel = hb.body.conversation.realtime_channel as string;
      assertOk(channel.startsWith(`conversation-widget.${acmeConversation}.`), channel);
      const c = client();
      assertOk((await subscribe(c, channel)).ok);
      // Another visitor's conversation id with this token, or a made-up token: refused.
      const gHb = await http(s.url, "POST", "/widget/globex-bot/heartbeat", {
        headers: freshIp(),
        body: { visitor_id: "v_g", conversation_id: globexConversation, chat_open: true },
      });
      const token = channel.split(".").pop();
      const other = gHb.body.conversation.realtime_channel as string;
      assertOk(other !== channel);
      const forged = `conversation-widget.${globexConversation}.${token}`;
      assertEquals((await subscribe(c, forged)).ok, false);
      assertEquals(
        (await subscribe(c, `conversation-widget.${acmeConversation}.${"A".repeat(22)}`)).ok,
        false,
      );
      // Another visitor id never gets the channel of this conversation.
      const stranger = await http(s.url, "POST", "/widget/acme-helper/heartbeat", {
        headers: freshIp(),
        body: { visitor_id: "v_stranger", conversation_id: acmeConversation, chat_open: true },
      });
      assertEquals(stranger.status, 404);
      assertOk(!JSON.stringify(stranger.body).includes(token!));
      // Public channels other than a widget's are not served.
      assertEquals((await subscribe(c, "my-channel")).ok, false);
    });

    await t.step("presence lists connected agents with name and avatar", async () => {
      const channel = `presence-workspace.${me.company.id}`;
      const a = client({ token: agentToken });
      const ra = await subscribe(a, channel);
      assertOk(ra.ok);
      const b = client({ token: T.acme.owner.agent });
      const added = nextEvent<{ id: string; info: unknown }>(ra.channel, "pusher:member_added");
      const rb = await subscribe(b, channel);
      assertOk(rb.ok);
      const data = rb.data as {
        count: number;
        each(fn: (m: { id: string; info: unknown }) => void): void;
      };
      const seen: Record<string, unknown> = {};
      data.each((m) => (seen[m.id] = m.info));
      assertEquals(seen[String(me.user.id)], { name: "Amy Agent", avatar: null });
      assertEquals(seen[String(owner.user.id)], { name: "Ada Owner", avatar: null });
      const m = await added;
      assertEquals(m.id, String(owner.user.id));
      const removed = nextEvent<{ id: string }>(ra.channel, "pusher:member_removed");
      b.disconnect();
      assertEquals((await removed).id, String(owner.user.id));
    });

    await t.step("client events: private channels only, relayed to the others", async () => {
      const ch = `private-conversation.${acmeConversation}`;
      const a = client({ token: agentToken });
      const b = client({ token: T.acme.owner.agent });
      const ra = await subscribe(a, ch);
      const rb = await subscribe(b, ch);
      assertOk(ra.ok && rb.ok);
      const heard = nextEvent(rb.channel, "client-typing");
      assertOk(ra.channel.trigger("client-typing", { typing: true, name: "Amy" }));
      assertEquals(await heard, { typing: true, name: "Amy" });
      // Over 10 a second: refused with 4301, and the others hear no more than 10.
      await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
      let relayed = 0;
      rb.channel.bind("client-burst", () => relayed++);
      const limited = nextEvent<{ data: { code: number } }>(a.connection, "error");
      for (let i = 0; i < 15; i++) ra.channel.trigger("client-burst", { i });
      assertEquals((await limited).data.code, 4301);
      await new Promise((r) => setTimeout(r, 200));
      assertEquals(relayed, 10);
      // A public channel takes no client events.
      const widgetName = `conversation-widget.${acmeConversation}.${"A".repeat(22)}`;
      assertEquals((await subscribe(a, widgetName)).ok, false);
    });

    await t.step(
      "a socket that stops answering pings is dropped, and leaves presence",
      async () => {
        const presence = `presence-workspace.${me.company.id}`;
        const watcher = client({ token: agentToken });
        const rw = await subscribe(watcher, presence);
        assertOk(rw.ok);
        // A raw client that joins presence as the owner, then never answers anything.
        const ws = new WebSocket(`ws://127.0.0.1:${s.realtimePort}/app/${REALTIME_KEY}?protocol=7`);
        const frames: { event: string; data: unknown }[] = [];
        const closed = new Promise<number>((resolve) => ws.onclose = (e) => resolve(e.code));
        const established = new Promise<string>((resolve) =>
          ws.onmessage = (e) => {
            const f = JSON.parse(e.data);
            frames.push(f);
            if (f.event === "pusher:connection_established") resolve(JSON.parse(f.data).socket_id);
          }
        );
        const socketId = await established;
        const signed = await http(s.url, "POST", "/api/agent/broadcasting/auth", {
          token: T.acme.owner.agent,
          body: { socket_id: socketId, channel_name: presence },
        });
        const added = nextEvent<{ id: string }>(rw.channel, "pusher:member_added");
        ws.send(JSON.stringify({
          event: "pusher:subscribe",
          data: {
            channel: presence,
            auth: signed.body.auth,
            channel_data: signed.body.channel_data,
          },
        }));
        assertEquals((await added).id, String(owner.user.id));
        const removed = nextEvent<{ id: string }>(rw.channel, "pusher:member_removed", 8000);
        // Silent from now on: the server pings after 1 s and drops it after 1 s more.
        assertEquals(await closed, 4201);
        assertEquals((await removed).id, String(owner.user.id));
        assertEquals(frames.map((f) => f.event), [
          "pusher:connection_established",
          "pusher_internal:subscription_succeeded",
          "pusher:ping",
        ]);
        assertEquals(JSON.parse(frames[0]!.data as string).activity_timeout, 1);
        // pusher-js, which answers pings, stays connected meanwhile.
        assertEquals(watcher.connection.state, "connected");
      },
    );

    await t.step("wrong key: 4001; no or old protocol: 4008 / 4007; plain GET: 426", async () => {
      for (
        const [path, code] of [
          ["/app/nope?protocol=7", 4001],
          [`/app/${REALTIME_KEY}`, 4008],
          [`/app/${REALTIME_KEY}?protocol=5`, 4007],
        ] as const
      ) {
        const ws = new WebSocket(`ws://127.0.0.1:${s.realtimePort}${path}`);
        const first = new Promise<{ event: string; data: { code: number } }>((resolve) =>
          ws.onmessage = (e) => resolve(JSON.parse(e.data))
        );
        const closed = new Promise<number>((resolve) => ws.onclose = (e) => resolve(e.code));
        assertEquals((await first).event, "pusher:error");
        assertEquals(await closed, code, path);
      }
      const plain = await fetch(`${s.url}/app/${REALTIME_KEY}`);
      assertEquals(plain.status, 426);
      await plain.body?.cancel();
      const broken = await fetch(`${s.url}/app/${REALTIME_KEY}`, {
        headers: { upgrade: "websocket" },
      });
      assertEquals(broken.status, 400, "a malformed handshake is a 400, not a 500");
      await broken.body?.cancel();
      const post = await fetch(`${s.url}/app/${REALTIME_KEY}`, { method: "POST" });
      assertEquals(post.status, 405);
      await post.body?.cancel();
    });
  } finally {
    for (const c of clients) c.disconnect();
    await s.stop();
    await fake.close();
  }
});

async function derivedSecret(appKey: string): Promise<string> {
  const raw = Uint8Array.from(atob(appKey.replace(/^base64:/, "")), (c) => c.charCodeAt(0));
  return await hmacHex(raw, "parley realtime signing secret v1");
}

async function hmacHex(key: string | Uint8Array<ArrayBuffer>, text: string): Promise<string> {
  const bytes = typeof key === "string" ? new TextEncoder().encode(key) : key;
  const k = await crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const sig = new Uint8Array(await crypto.subtle.sign("HMAC", k, new TextEncoder().encode(text)));
  return [...sig].map((b) => b.toString(16).padStart(2, "0")).join("");
}
