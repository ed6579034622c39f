/**
 * No client can make the socket server hold its messages in memory: an
 * endless fragmented message and a huge single frame are refused with 1009
 * (RFC 6455 "message too big") after at most 16 KiB, while the server's
 * resident memory stays flat; a frame without a mask is closed with 1002; one
 * address holds at most REALTIME_MAX_PER_IP sockets (close 4101), counted
 * across instances through the Kv. Frames are written by hand over TCP, as
 * an attacker would.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { type ServerProcess, startServerProcess } from "../helpers/server_process.ts";
import { REALTIME_KEY } from "./pusher_helpers.ts";

const MiB = 1 << 20;
/** What a few sockets streaming hundreds of MiB may add to the server's RSS. */
const RSS_BOUND = 48 * MiB;

/** A raw client: handshake, then frames of our choosing; collects what the server sends. */
async function rawSocket(port: number, headers: Record<string, string> = {}) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("");
  await writeAll(
    conn,
    new TextEncoder().encode(
      `GET /app/${REALTIME_KEY}?protocol=7 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n` +
        `Connection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n`,
    ),
  );
  let received = new Uint8Array(0);
  let ended = false;
  const reading = (async () => {
    const buf = new Uint8Array(16384);
    try {
      while (true) {
        const n = await conn.read(buf);
        if (n === null) break;
        const next = new Uint8Array(received.length + n);
        next.set(received);
        next.set(buf.subarray(0, n), received.length);
        received = next;
      }
    } catch { /* reset by the server */ }
    ended = true;
  })();
  /** The close code the server sent, once it has. */
  const closeCode = async (ms = 10_000): Promise<number | null> => {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      const code = findClose(received);
      if (code !== null) return code;
      if (ended) return null;
      await new Promise((r) => setTimeout(r, 20));
    }
    return null;
  };
  return {
    conn,
    closeCode,
    get ended() {
      return ended;
    },
    text: () => new TextDecoder().decode(received),
    async close() {
      try {
        conn.close();
      } catch { /* already closed */ }
      await reading;
    },
  };
}

/** The status code of the first close frame (opcode 8) the server sent after its 101. */
function findClose(bytes: Uint8Array): number | null {
  const text = new TextDecoder("latin1").decode(bytes);
  let i = text.indexOf("\r\n\r\n");
  if (i < 0) return null;
  i += 4;
  while (i + 2 <= bytes.length) {
    const op = bytes[i]! & 0x0f;
    let len = bytes[i + 1]! & 0x7f;
    let at = i + 2;
    if (len === 126) {
      len = (bytes[at]! << 8) | bytes[at + 1]!;
      at += 2;
    }
    if (at + len > bytes.length) return null;
    if (op === 8) return len >= 2 ? (bytes[at]! << 8) | bytes[at + 1]! : 1005;
    i = at + len;
  }
  return null;
}

/** A client frame header (mask key zero, so the payload goes as it is). */
function header(fin: boolean, opcode: number, length: number, masked = true): Uint8Array {
  const h = [(fin ? 0x80 : 0) | opcode];
  const m = masked ? 0x80 : 0;
  if (length < 126) h.push(m | length);
  else if (length < 65536) h.push(m | 126, length >> 8, length & 255);
  else {
    h.push(m | 127, 0, 0, 0, 0);
    h.push((length >>> 24) & 255, (length >>> 16) & 255, (length >>> 8) & 255, length & 255);
  }
  if (masked) h.push(0, 0, 0, 0);
  return new Uint8Array(h);
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
}

/** Writes until `total` bytes are out or the server cuts the connection; returns what was written. */
async function stream(conn: Deno.Conn, chunks: () => Uint8Array[], total: number) {
  let sent = 0;
  try {
    while (sent < total) {
      for (const c of chunks()) {
        await writeAll(conn, c);
        sent += c.length;
      }
    }
  } catch { /* the server cut us off */ }
  return sent;
}

/** Samples the server process's RSS every 50 ms until stopped; the growth at peak. */
function peakGrowth(server: ServerProcess) {
  let before = 0;
  let peak = 0;
  let sampling = true;
  const loop = (async () => {
    before = await server.rss();
    peak = before;
    while (sampling) {
      peak = Math.max(peak, await server.rss());
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    started: new Promise<void>((r) => setTimeout(r, 60)),
    async stop(): Promise<number> {
      sampling = false;
      await loop;
      return peak - before;
    },
  };
}

// The server runs as a process of its own: its RSS is then its own, not the test
// runner's (which holds every file of a parallel run).
Deno.test("realtime: socket limits hold memory flat", serverTestOptions, async (t) => {
  const server = await startServerProcess({ env: { REALTIME_MAX_PER_IP: "8" } });
  const port = server.instance.realtimePort;
  const payload = new Uint8Array(64 * 1024).fill(0x61);
  try {
    // Warm the server's socket path once, so the baseline includes its code and buffers.
    const warm = await rawSocket(port);
    await warm.close();
    await new Promise((r) => setTimeout(r, 300));

    await t.step("endless fragmented messages: 1009, memory flat", async () => {
      const sampler = peakGrowth(server);
      await sampler.started;
      const sockets = await Promise.all([1, 2, 3, 4].map(() => rawSocket(port)));
      try {
        const sent = await Promise.all(sockets.map((sock) => {
          let first = true;
          const chunks = () => {
            const h = header(false, first ? 1 : 0, payload.length);
            first = false;
            return [h, payload];
          };
          // 64 MiB each: the server must refuse long before, whatever we keep sending.
          return stream(sock.conn, chunks, 64 * MiB);
        }));
        for (const sock of sockets) assertEquals(await sock.closeCode(), 1009);
        const grew = await sampler.stop();
        console.log(
          `fragmented: sent ${sent.map((b) => (b / MiB).toFixed(1)).join(", ")} MiB; ` +
            `server RSS +${(grew / MiB).toFixed(1)} MiB at peak`,
        );
        assertOk(grew < RSS_BOUND, `RSS grew by ${(grew / MiB).toFixed(1)} MiB`);
      } finally {
        await sampler.stop();
        for (const sock of sockets) await sock.close();
      }
    });

    await t.step("a 60 MiB frame: 1009 from its header, memory flat", async () => {
      const sampler = peakGrowth(server);
      await sampler.started;
      const sock = await rawSocket(port);
      try {
        await writeAll(sock.conn, header(true, 1, 60 * MiB));
        const sent = await stream(sock.conn, () => [payload], 60 * MiB);
        assertEquals(await sock.closeCode(), 1009);
        const grew = await sampler.stop();
        console.log(
          `single frame: sent ${(sent / MiB).toFixed(1)} MiB; server RSS +${
            (grew / MiB).toFixed(1)
          } MiB at peak`,
        );
        assertOk(grew < RSS_BOUND, `RSS grew by ${(grew / MiB).toFixed(1)} MiB`);
      } finally {
        await sampler.stop();
        await sock.close();
      }
    });
  } finally {
    await server.stop();
  }
});

Deno.test("realtime: protocol errors and the per-address cap", serverTestOptions, async (t) => {
  const s = await startTestServer({ env: { REALTIME_MAX_PER_IP: "8" } });
  try {
    await t.step("an unmasked client frame: close 1002", async () => {
      const sock = await rawSocket(s.realtimePort);
      try {
        const ping = new TextEncoder().encode('{"event":"pusher:ping","data":{}}');
        await writeAll(sock.conn, header(true, 1, ping.length, false));
        await writeAll(sock.conn, ping);
        assertEquals(await sock.closeCode(), 1002);
        assertOk(!sock.text().includes("pusher:pong"), "an unmasked frame must not be answered");
      } finally {
        await sock.close();
      }
    });

    await t.step("one address: at most REALTIME_MAX_PER_IP sockets, then 4101", async () => {
      const held = [];
      await new Promise((r) => setTimeout(r, 2000)); // the socket cut above gives its slot back
      for (let i = 0; i < 8; i++) held.push(await rawSocket(s.realtimePort));
      const over = await rawSocket(s.realtimePort);
      try {
        assertEquals(await over.closeCode(), 4101);
        assertOk(over.text().includes("Too many connections from this address"), over.text());
        for (const h of held) assertEquals(await h.closeCode(300), null, "held sockets stay open");
        // A socket that closes gives its slot back.
        await held.pop()!.close();
        await new Promise((r) => setTimeout(r, 300));
        const again = await rawSocket(s.realtimePort);
        held.push(again);
        assertEquals(await again.closeCode(500), null);
        assertOk(again.text().includes("pusher:connection_established"), again.text());
      } finally {
        await over.close();
        for (const h of held) await h.close();
      }
    });
  } finally {
    await s.stop();
  }
});

Deno.test({
  name: "realtime: the per-address cap is shared by instances through Redis",
  ignore: !Deno.env.get("REDIS_URL"),
  ...serverTestOptions,
  fn: async () => {
    const a = await startTestServer({ env: { REALTIME_MAX_PER_IP: "3" } });
    // Instance B on the same Redis prefix (its own embedded or PostgreSQL database is enough here).
    const b = await startTestServer({
      env: { REALTIME_MAX_PER_IP: "3", REDIS_PREFIX: a.env.REDIS_PREFIX! },
    });
    const held = [];
    try {
      held.push(await rawSocket(a.realtimePort), await rawSocket(a.realtimePort));
      held.push(await rawSocket(b.realtimePort));
      for (const h of held) assertEquals(await h.closeCode(300), null);
      const overOnA = await rawSocket(a.realtimePort);
      const overOnB = await rawSocket(b.realtimePort);
      held.push(overOnA, overOnB);
      assertEquals(await overOnA.closeCode(), 4101);
      assertEquals(await overOnB.closeCode(), 4101);
    } finally {
      for (const h of held) await h.close();
      await b.stop();
      await a.stop();
    }
  },
});
