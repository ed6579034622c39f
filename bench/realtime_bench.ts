/**
 * Realtime: (1) the time from an agent's API reply to its `message.created`
 * on a subscribed socket, beside two baselines from the same run (the reply's
 * own HTTP round trip, and a `pusher:ping` → `pusher:pong` round trip on the
 * same socket, the transport's floor); on one instance, and across two
 * instances through Redis (reply sent to A, socket on B). (2) 10,000 idle
 * sockets held by one instance, each subscribed to a widget channel, with the
 * server's memory per socket, and one reply fanned out to all of them.
 *
 * Servers run as shipped, in subprocesses (`main.ts`), so their memory is
 * their own; the clients speak Pusher protocol 7 directly (as the widget
 * does), signing through broadcasting/auth. One instance uses the embedded
 * database unless DATABASE_URL is set; the two-instance run needs a real
 * PostgreSQL (BENCH_DATABASE_URL / DATABASE_URL / local) and Redis
 * (BENCH_REDIS_URL / REDIS_URL / local) and is left out without them.
 */
import postgres from "postgres";
import { startFakeAi } from "../tests/helpers/fake_ai.ts";
import { standardSeed, T } from "../tests/helpers/fixtures.ts";
import { freePort, realPostgresUrl, waitFor } from "./support.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const KEY = "parley";
const SAMPLES = Number(Deno.env.get("BENCH_REALTIME_SAMPLES") ?? "300");
const IDLE = Number(Deno.env.get("BENCH_IDLE_SOCKETS") ?? "10000");
const APP_KEY = "base64:" + btoa(String.fromCharCode(...new Uint8Array(32).fill(9)));

interface Server {
  url: string;
  port: number;
  /** The socket server's own listener (REALTIME_PORT). */
  socketPort: number;
  pid: number;
  stop(): Promise<void>;
}

async function startServer(env: Record<string, string>): Promise<Server> {
  const port = freePort();
  const socketPort = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN],
    env: {
      PORT: String(port),
      REALTIME_PORT: String(socketPort),
      // Every bench socket comes from one address.
      REALTIME_MAX_PER_IP: String(IDLE + 1000),
      HOST: "127.0.0.1",
      BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: "error",
      DEMO: "0",
      APP_KEY,
      TRUSTED_PROXIES: "127.0.0.1",
      ...env,
    },
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/readyz`);
  return {
    url,
    port,
    socketPort,
    pid: child.pid,
    stop: async () => {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

/** A socket speaking the protocol: frames are queued for `next`. */
class Socket {
  readonly ws: WebSocket;
  socketId = "";
  private readonly waiters: ((f: Frame) => boolean)[] = [];
  readonly ready: Promise<void>;

  constructor(port: number) {
    this.ws = new WebSocket(`ws://127.0.0.1:${port}/app/${KEY}?protocol=7`);
    this.ready = new Promise((resolve, reject) => {
      this.ws.onerror = () => reject(new Error("socket failed"));
      this.ws.onmessage = (e) => {
        // Stamped on arrival: the event often lands while the reply's HTTP
        // response is still on its way, and that is the moment to measure.
        const f = { ...JSON.parse(e.data), receivedAt: performance.now() } as Frame;
        if (f.event === "pusher:connection_established") {
          this.socketId = JSON.parse(f.data).socket_id;
          resolve();
        }
        const i = this.waiters.findIndex((w) => w(f));
        if (i >= 0) this.waiters.splice(i, 1);
      };
    });
  }

  /** Resolves at the first frame `match` accepts. */
  next(match: (f: Frame) => boolean): Promise<Frame> {
    return new Promise((resolve) =>
      this.waiters.push((f) => {
        if (!match(f)) return false;
        resolve(f);
        return true;
      })
    );
  }

  send(event: string, data: unknown, channel?: string): void {
    this.ws.send(JSON.stringify({ event, data, channel }));
  }

  async subscribe(channel: string, auth?: string): Promise<void> {
    const ok = this.next((f) => f.channel === channel && f.event.includes("subscription"));
    this.send("pusher:subscribe", { channel, auth });
    const f = await ok;
    if (f.event !== "pusher_internal:subscription_succeeded") throw new Error(f.data);
  }
}

interface Frame {
  event: string;
  channel?: string;
  data: string;
  /** performance.now() when the frame reached this client. */
  receivedAt: number;
}

async function json(url: string, init: RequestInit & { token?: string } = {}) {
  const res = await fetch(url, {
    ...init,
    headers: {
      "content-type": "application/json",
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      "x-forwarded-for": `10.9.${Math.floor(Math.random() * 250)}.${
        Math.floor(Math.random() * 250)
      }`,
    },
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const fmt = (v: number) => v.toFixed(2);

/** A conversation, an agent socket on `socketServer` subscribed to it, replies sent to `apiServer`. */
async function replyLatency(apiServer: Server, socketServer: Server) {
  const token = T.acme.agent.agent;
  const start = await fetch(`${apiServer.url}/widget/acme-helper/stream`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ visitor_id: `v_bench_${crypto.randomUUID()}`, message: "Hello" }),
  });
  const text = await start.text();
  const id = /"conversation_id":"([0-9a-f-]{36})"/.exec(text)![1]!;
  const s = new Socket(socketServer.socketPort);
  await s.ready;
  const channel = `private-conversation.${id}`;
  const { auth } = await json(`${socketServer.url}/api/agent/broadcasting/auth`, {
    method: "POST",
    token,
    body: JSON.stringify({ socket_id: s.socketId, channel_name: channel }),
  });
  await s.subscribe(channel, auth);
  const event: number[] = [];
  const http: number[] = [];
  const ping: number[] = [];
  for (let i = 0; i < SAMPLES + 20; i++) {
    const p0 = performance.now();
    const pong = s.next((f) => f.event === "pusher:pong");
    s.send("pusher:ping", {});
    const pingMs = (await pong).receivedAt - p0;
    const body = `Reply ${i}`;
    const seen = s.next((f) => f.event === "message.created" && f.data.includes(`"${body}"`));
    const t0 = performance.now();
    const res = await fetch(`${apiServer.url}/api/agent/conversations/${id}/reply`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ body }),
    });
    await res.body?.cancel();
    const httpMs = performance.now() - t0;
    const eventMs = (await seen).receivedAt - t0;
    if (i >= 20) { // the first replies warm both servers up
      event.push(eventMs);
      http.push(httpMs);
      ping.push(pingMs);
    }
  }
  s.ws.close();
  return { event, http, ping };
}

function latencyRow(label: string, r: { event: number[]; http: number[]; ping: number[] }) {
  const after = r.event.map((e, i) => e - r.http[i]!);
  const cell = (v: number[]) => `${fmt(pct(v, 50))} / ${fmt(pct(v, 95))}`;
  return `| ${label} | ${cell(r.event)} | ${cell(r.http)} | ${fmt(pct(after, 50))} | ${
    cell(r.ping)
  } |`;
}

async function memoryMiB(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** IDLE sockets on one widget channel; memory before and after, and one reply to all. */
async function idleSockets(server: Server) {
  const token = T.acme.agent.agent;
  const visitor = `v_idle_${crypto.randomUUID()}`;
  const start = await fetch(`${server.url}/widget/acme-helper/stream`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ visitor_id: visitor, message: "Hello" }),
  });
  const id = /"conversation_id":"([0-9a-f-]{36})"/.exec(await start.text())![1]!;
  const hb = await json(`${server.url}/widget/acme-helper/heartbeat`, {
    method: "POST",
    body: JSON.stringify({ visitor_id: visitor, conversation_id: id, chat_open: true }),
  });
  const channel = hb.conversation.realtime_channel as string;
  // Warm the socket path, then let the heap settle before the baseline.
  const warm = new Socket(server.socketPort);
  await warm.ready;
  await warm.subscribe(channel);
  await new Promise((r) => setTimeout(r, 1000));
  const before = await memoryMiB(server.pid);
  const sockets: Socket[] = [];
  const t0 = performance.now();
  for (let i = 0; i < IDLE; i += 500) {
    const batch = Array.from(
      { length: Math.min(500, IDLE - i) },
      () => new Socket(server.socketPort),
    );
    await Promise.all(batch.map(async (s) => {
      await s.ready;
      await s.subscribe(channel);
    }));
    sockets.push(...batch);
  }
  const openMs = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 2000));
  const after = await memoryMiB(server.pid);
  // One agent reply to every socket at once.
  const all = sockets.map((s) => s.next((f) => f.event === "message.created"));
  const f0 = performance.now();
  await json(`${server.url}/api/agent/conversations/${id}/reply`, {
    method: "POST",
    token,
    body: JSON.stringify({ body: "Hello, everyone." }),
  });
  await Promise.all(all);
  const fanoutMs = performance.now() - f0;
  for (const s of [...sockets, warm]) s.ws.close();
  return { before, after, openMs, fanoutMs, perSocketKiB: ((after - before) * 1024) / IDLE };
}

async function redisUrl(): Promise<string | null> {
  const given = Deno.env.get("BENCH_REDIS_URL") ?? Deno.env.get("REDIS_URL");
  if (given) return given;
  try {
    (await Deno.connect({ hostname: "127.0.0.1", port: 6379 })).close();
    return "redis://127.0.0.1:6379";
  } catch {
    return null;
  }
}

export async function run(): Promise<string> {
  const stub = startFakeAi({ reply: "Happy to help." });
  const seedDir = await Deno.makeTempDir({ prefix: "parley-bench-rt-" });
  const seedFile = `${seedDir}/seed.json`;
  await Deno.writeTextFile(seedFile, JSON.stringify(standardSeed()));
  const common = { SEED_FILE: seedFile, AI_BASE_URL: stub.baseUrl };
  const lines = [
    "## Realtime (Pusher protocol)",
    "",
    `${SAMPLES} replies per run, after 20 warm-up replies; times in ms, measured by the client. ` +
    "The event is timed when its frame reaches the client. It leaves after the reply's " +
    'transaction commits, so it can arrive before the HTTP response (a negative "after").',
    "",
    "| Run | API reply → `message.created` on the socket (p50 / p95) | baseline: the reply's HTTP round trip | event after the HTTP response (p50) | baseline: `pusher:ping` → `pong` |",
    "| --- | --- | --- | --- | --- |",
  ];
  const db = Deno.env.get("DATABASE_URL") ?? null;
  const one = await startServer({
    ...common,
    DATA_DIR: `${seedDir}/one`,
    ...(db ? { DATABASE_URL: db } : {}),
  });
  let idle;
  try {
    lines.push(
      latencyRow(
        `One instance (${db ? "PostgreSQL" : "embedded"})`,
        await replyLatency(one, one),
      ),
    );
    idle = await idleSockets(one);
  } finally {
    await one.stop();
  }
  const pg = await realPostgresUrl();
  const redis = await redisUrl();
  if (pg && redis) {
    const name = `parley_bench_rt_${crypto.randomUUID().replace(/-/g, "").slice(0, 10)}`;
    const admin = postgres(pg, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE DATABASE ${name}`);
    const url = new URL(pg);
    url.pathname = `/${name}`;
    const env = {
      ...common,
      DATABASE_URL: url.toString(),
      REDIS_URL: redis,
      REDIS_PREFIX: `bench${name}:`,
    };
    const a = await startServer({ ...env, DATA_DIR: `${seedDir}/a` });
    const b = await startServer({ ...env, DATA_DIR: `${seedDir}/b`, SEED_FILE: "" });
    try {
      lines.push(latencyRow("One instance, PostgreSQL + Redis", await replyLatency(a, a)));
      lines.push(
        latencyRow(
          "Two instances via Redis (reply to A, socket on B)",
          await replyLatency(a, b),
        ),
      );
    } finally {
      await b.stop();
      await a.stop();
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  } else {
    lines.push("", "Two instances: left out (no PostgreSQL or Redis reachable).");
  }
  await stub.close();
  await Deno.remove(seedDir, { recursive: true }).catch(() => {});
  lines.push(
    "",
    `Idle sockets: ${IDLE} sockets on one instance, each subscribed to a widget channel, opened in ${
      (idle.openMs / 1000).toFixed(1)
    } s; server RSS ${idle.before.toFixed(0)} MiB before, ${idle.after.toFixed(0)} MiB after: ` +
      `**${idle.perSocketKiB.toFixed(1)} KiB per socket**. One agent reply reached all ${IDLE} in ${
        idle.fanoutMs.toFixed(0)
      } ms.`,
  );
  return lines.join("\n");
}
