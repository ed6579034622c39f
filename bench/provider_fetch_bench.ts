/**
 * The provider's HTTP client alone (issue 25): the base's node:http fetch
 * (its `domain/ai/provider_fetch.ts`, from BENCH_FETCH_BASE, default
 * 88662d4), ours (`domain/ai/http1/fetch.ts`), undici's `request`
 * (`domain/ai/undici_fetch.ts`, issue 43) and the runtime's fetch,
 * against one local SSE server in a process of its own.
 *
 * 1. Time from the request to its first body chunk, sequential streamed
 *    POSTs on kept-alive connections, p50 / p90; the clients alternate in
 *    rounds, each round in a fresh process.
 * 2. Memory per held stream: BENCH_FETCH_HELD (1,000) streams open at once,
 *    each reading the fragment the server sends every second; resident memory
 *    of the client's process after a forced GC, held minus before, per stream.
 *
 * Each client runs in a process of its own (this file, `client` role), so
 * its memory is its own.
 */
import { baseTree, shortCommit } from "./base_tree.ts";
import { freePort, percentile, waitFor } from "./support.ts";

const SELF = new URL(import.meta.url).pathname;
const BASE = Deno.env.get("BENCH_FETCH_BASE") ?? "88662d4";
const SAMPLES = Number(Deno.env.get("BENCH_FETCH_SAMPLES") ?? "500");
const HELD = Number(Deno.env.get("BENCH_FETCH_HELD") ?? "1000");
const ROUNDS = Number(Deno.env.get("BENCH_FETCH_ROUNDS") ?? "3");
const ALL_KINDS = ["node:http", "http1 (ours)", "undici", "runtime fetch"] as const;
type Kind = typeof ALL_KINDS[number];
/** BENCH_FETCH_KINDS: a comma-separated subset, e.g. `http1 (ours),undici` (issue 43). */
const KINDS: readonly Kind[] = Deno.env.get("BENCH_FETCH_KINDS")?.split(",")
  .map((k) => k.trim() as Kind).filter((k) => ALL_KINDS.includes(k)) ?? ALL_KINDS;

/** One SSE fragment as OpenAI sends it (about 200 bytes). */
const FRAGMENT = `data: ${
  JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion.chunk",
    created: 1,
    model: "m",
    choices: [{ index: 0, delta: { content: "word " }, finish_reason: null }],
  })
}\n\n`;

/** The server role: `/short` sends three fragments and ends; `/held` one a second until the client leaves. */
function serve(port: number): void {
  const enc = new TextEncoder();
  const fragment = enc.encode(FRAGMENT);
  Deno.serve({ port, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    await req.arrayBuffer();
    const path = new URL(req.url).pathname;
    if (path === "/ready") return new Response("ok");
    let timer: ReturnType<typeof setInterval> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(fragment);
        if (path === "/short") {
          c.enqueue(fragment);
          c.enqueue(enc.encode("data: [DONE]\n\n"));
          c.close();
          return;
        }
        timer = setInterval(() => {
          try {
            c.enqueue(fragment);
          } catch {
            clearInterval(timer);
          }
        }, 1000);
      },
      cancel() {
        clearInterval(timer);
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
}

async function clientFetch(kind: Kind): Promise<typeof fetch> {
  if (kind === "runtime fetch") return fetch;
  if (kind === "http1 (ours)") {
    return (await import("../domain/ai/http1/fetch.ts")).http1Fetch as typeof fetch;
  }
  if (kind === "undici") {
    return (await import("../domain/ai/undici_fetch.ts")).undiciFetch as typeof fetch;
  }
  const base = await baseTree(BASE, ["domain/ai"]);
  const mod = await import(new URL("domain/ai/provider_fetch.ts", base).href);
  return mod.nodeFetch as typeof fetch;
}

const BODY = JSON.stringify({
  model: "m",
  stream: true,
  messages: [{ role: "user", content: "hi" }],
});

function post(f: typeof fetch, url: string, signal?: AbortSignal): Promise<Response> {
  return f(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer none" },
    body: BODY,
    signal,
  });
}

function rssKb(): number {
  const status = Deno.readTextFileSync("/proc/self/status");
  return Number(/^VmRSS:\s+(\d+)/m.exec(status)![1]);
}

async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The client role, one kind per process: `latency` or `held`; prints one JSON line. */
async function client(kind: Kind, port: number, mode: string): Promise<void> {
  const f = await clientFetch(kind);
  const base = `http://127.0.0.1:${port}`;
  const once = async () => {
    const t0 = performance.now();
    const res = await post(f, `${base}/short`);
    const reader = res.body!.getReader();
    const first = await reader.read();
    const ms = performance.now() - t0;
    if (first.done) throw new Error("empty body");
    while (!(await reader.read()).done) { /* to the end: the connection is kept */ }
    return ms;
  };
  for (let i = 0; i < 50; i++) await once(); // warm-up: JIT, connections
  if (mode === "latency") {
    const times: number[] = [];
    for (let i = 0; i < SAMPLES; i++) times.push(await once());
    console.log(JSON.stringify({ p50: percentile(times, 0.5), p90: percentile(times, 0.9) }));
    Deno.exit(0);
  }
  await settle();
  const before = rssKb();
  const m0 = Deno.memoryUsage();
  const ac = new AbortController();
  const readers: Promise<void>[] = [];
  let ready = 0;
  for (let batch = 0; batch < HELD; batch += 100) {
    await Promise.all(Array.from({ length: Math.min(100, HELD - batch) }, async () => {
      const res = await post(f, `${base}/held`, ac.signal);
      const reader = res.body!.getReader();
      await reader.read();
      ready++;
      // Held as a waiting stream is: a read pending for the next fragment.
      readers.push((async () => {
        try {
          while (!(await reader.read()).done) { /* next fragment */ }
        } catch { /* aborted at the end */ }
      })());
    }));
  }
  await new Promise((r) => setTimeout(r, 3000)); // three fragments each
  await settle();
  const held = rssKb();
  const m1 = Deno.memoryUsage();
  const per = (k: keyof Deno.MemoryUsage) => (m1[k] - m0[k]) / 1024 / HELD;
  console.log(JSON.stringify({
    ready,
    perStreamKb: (held - before) / HELD,
    heapKb: per("heapUsed"),
    externalKb: per("external"),
    before,
    held,
  }));
  ac.abort();
  Deno.exit(0);
}

async function runClient(kind: Kind, port: number, mode: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--v8-flags=--expose-gc", SELF, "client", kind, String(port), mode],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const line = new TextDecoder().decode(out.stdout).trim().split("\n").at(-1) ?? "";
  if (!out.success || !line.startsWith("{")) throw new Error(`${kind} ${mode} failed: ${line}`);
  return JSON.parse(line);
}

const loadAverage = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");

export async function run(): Promise<string> {
  const port = freePort();
  const server = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SELF, "server", String(port)],
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  try {
    await waitFor(`http://127.0.0.1:${port}/ready`);
    if (KINDS.includes("node:http")) await baseTree(BASE, ["domain/ai"]);
    const lines = [
      `### Provider fetch alone: ${KINDS.join(", ")}` +
      (KINDS.includes("node:http") ? ` (node:http from ${await shortCommit(BASE)})` : ""),
      "",
      `${SAMPLES} sequential streamed POSTs per round after 50 warm-up, kept-alive; ` +
      `${ROUNDS} rounds alternating; ${HELD} held streams. Load at start: ${loadAverage()}.`,
      "",
      "| client | first chunk p50 / p90 per round (ms) | RSS per held stream | JS heap / external per stream |",
      "| ------ | ------------------------------------ | ------------------- | ----------------------------- |",
    ];
    const times = new Map<Kind, string[]>(KINDS.map((k) => [k, []]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const kind of KINDS) {
        const { p50, p90 } = await runClient(kind, port, "latency");
        times.get(kind)!.push(`${p50.toFixed(3)} / ${p90.toFixed(3)}`);
      }
    }
    for (const kind of KINDS) {
      const held = await runClient(kind, port, "held");
      if (held.ready !== HELD) throw new Error(`${kind}: ${held.ready} of ${HELD} streams opened`);
      lines.push(
        `| ${kind} | ${times.get(kind)!.join(", ")} | ${held.perStreamKb.toFixed(1)} KB ` +
          `(${(held.before / 1024).toFixed(0)} → ${(held.held / 1024).toFixed(0)} MiB) | ` +
          `${held.heapKb.toFixed(1)} / ${held.externalKb.toFixed(1)} KB |`,
      );
    }
    lines.push("", `Load at the end: ${loadAverage()}.`);
    return lines.join("\n");
  } finally {
    server.kill();
    await server.status;
  }
}

if (import.meta.main) {
  const [role, a, b, c] = Deno.args;
  if (role === "server") serve(Number(a));
  else if (role === "client") await client(a as Kind, Number(b), c!);
  else console.log(await run());
}
