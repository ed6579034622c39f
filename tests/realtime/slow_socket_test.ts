/**
 * A socket that stops reading (a stalled or dead client) is dropped once its
 * send queue passes the bound, while the other sockets on the same channel
 * keep receiving every event in time: nothing waits for the slow one.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { pusherClient, REALTIME_KEY, subscribe } from "./pusher_helpers.ts";

/** A masked client text frame (RFC 6455), written by hand: this client never reads. */
function clientFrame(text: string): Uint8Array {
  const payload = new TextEncoder().encode(text);
  const mask = crypto.getRandomValues(new Uint8Array(4));
  const head = payload.length < 126 ? [0x81, 0x80 | payload.length] : [
    0x81,
    0x80 | 126,
    payload.length >> 8,
    payload.length & 255,
  ];
  const out = new Uint8Array(head.length + 4 + payload.length);
  out.set(head);
  out.set(mask, head.length);
  payload.forEach((b, i) => (out[head.length + 4 + i] = b ^ mask[i % 4]!));
  return out;
}

Deno.test("realtime: a socket that stops reading is dropped; others are not held up", {
  ...serverTestOptions,
}, async () => {
  const fake = startFakeAi({ reply: "Happy to help." });
  const s = await startTestServer({
    seed: standardSeed(),
    env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
  });
  const token = T.acme.agent.agent;
  const agent = pusherClient(s, { token });
  let stalled: Deno.TcpConn | null = null;
  try {
    const start = await postStream(s.url, "acme-helper", { visitor_id: "v_slow", message: "Hi" });
    const id = start.events[0]!.data.conversation_id as string;
    const hb = await http(s.url, "POST", "/widget/acme-helper/heartbeat", {
      headers: freshIp(),
      body: { visitor_id: "v_slow", conversation_id: id, chat_open: true },
    });
    const channel = hb.body.conversation.realtime_channel as string;
    const fast = await subscribe(agent, `private-conversation.${id}`);
    assertOk(fast.ok);
    let heard = 0;
    fast.channel.bind("message.created", () => heard++);

    // The stalled client: handshake, subscribe to the widget channel, then never read again.
    stalled = await Deno.connect({ hostname: "127.0.0.1", port: s.realtimePort });
    const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
    await stalled.write(new TextEncoder().encode(
      `GET /app/${REALTIME_KEY}?protocol=7 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n` +
        `Connection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    ));
    await new Promise((r) => setTimeout(r, 200));
    const subscribeFrame = JSON.stringify({ event: "pusher:subscribe", data: { channel } });
    await stalled.write(clientFrame(subscribeFrame));
    await new Promise((r) => setTimeout(r, 200));
    const before = s.deps.realtime.size;
    assertEquals(before, 2, "the agent's socket and the stalled one");

    // Long agent replies until the stalled socket's queue passes the bound.
    const body = "x".repeat(4000);
    let sent = 0;
    while (s.deps.realtime.size === before && sent < 3000) {
      const r = await http(s.url, "POST", `/api/agent/conversations/${id}/reply`, {
        token,
        body: { body },
      });
      assertEquals(r.status, 200);
      sent++;
    }
    assertEquals(s.deps.realtime.size, 1, `dropped after ${sent} replies`);
    console.log(`stalled socket dropped after ${sent} replies of 4,000 characters`);
    await new Promise((r) => setTimeout(r, 300));
    assertEquals(heard, sent, "the agent heard every reply meanwhile");
    assertEquals(agent.connection.state, "connected");
  } finally {
    stalled?.close();
    agent.disconnect();
    await s.stop();
    await fake.close();
  }
});
