/**
 * Widget streaming: (1) time to the first `delta` through the server minus
 * the stub provider's own first-token time, and (2) 1,000 concurrent streams
 * from one machine, all checked complete, with the server's peak memory.
 *
 * The server runs as shipped in a subprocess (`main.ts`, embedded database
 * unless DATABASE_URL is set, request log off), so its memory is its own.
 * The stub provider (tests/helpers/fake_ai.ts) and the load run here. Each
 * request carries its own X-Forwarded-For (the server trusts 127.0.0.1), so
 * the per-IP limit of 20 streams a minute does not refuse the load.
 * BENCH_SERVER_FLAGS adds Deno flags to the server's command line, e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` for a CPU profile of the run.
 */
import { startFakeAi } from "../tests/helpers/fake_ai.ts";
import { freePort, memoryOf, processCpuSeconds, startBenchServer } from "./support.ts";

/** A bare relay to the stub: the floor of any server in between (relay_floor_server.ts). */
const RELAY = new URL("./relay_floor_server.ts", import.meta.url).pathname;
const KEY = "acme-helper";
const SAMPLES = Number(Deno.env.get("BENCH_TTFD_SAMPLES") ?? "200");
/** Samples with the stub's first token 100 ms late, as a real provider's never comes at once. */
const SLOW_SAMPLES = Number(Deno.env.get("BENCH_SLOW_SAMPLES") ?? "50");
const SLOW_FIRST_TOKEN_MS = 100;
const CONCURRENT = Number(Deno.env.get("BENCH_STREAMS") ?? "1000");
const REPLY = "Our support desk is open Monday to Friday, from nine to five, and replies " +
  "to every e-mail within one business day. Express shipping takes two days.";

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN; // every stream failed: the table says so
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

let ipSeq = 0;
function nextIp(): string {
  const n = ++ipSeq;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

interface StreamOutcome {
  firstDeltaMs: number | null;
  events: string[];
  text: string;
  messageId: number | null;
  /** The `code` of a terminal `error` event. */
  errorCode?: string;
}

/** One widget stream, read to the end; times the first `delta` from the request start. */
async function widgetStream(base: string, visitor: string): Promise<StreamOutcome> {
  const t0 = performance.now();
  const res = await fetch(`${base}/widget/${KEY}/stream`, {
    method: "POST",
    headers: {
      accept: "text/event-stream",
      "content-type": "application/json",
      "x-forwarded-for": nextIp(),
    },
    // As the widget sends it: every message carries its idempotency key.
    body: JSON.stringify({
      visitor_id: visitor,
      message: "When are you open?",
      client_id: crypto.randomUUID(),
    }),
  });
  if (res.status !== 200) throw new Error(`stream answered ${res.status}: ${await res.text()}`);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const out: StreamOutcome = { firstDeltaMs: null, events: [], text: "", messageId: null };
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let cut: number;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event = /^event: (.+)$/m.exec(block)?.[1];
      const data = /^data: (.+)$/m.exec(block)?.[1];
      if (!event || !data) continue;
      out.events.push(event);
      const parsed = JSON.parse(data);
      if (event === "delta") {
        out.firstDeltaMs ??= performance.now() - t0;
        out.text += parsed.delta;
      }
      if (event === "done") out.messageId = parsed.message_id;
      if (event === "error") out.errorCode = parsed.code;
    }
  }
  return out;
}

/** The stub's own first-token time: the same streamed completion, asked directly. */
async function stubFirstToken(stubBase: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${stubBase}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-bench" },
    body: JSON.stringify({
      model: "gpt-4o-mini",
      stream: true,
      messages: [{ role: "user", content: "When are you open?" }],
    }),
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let first: number | null = null;
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    if (first === null && /"content":"[^"]/.test(buffer)) first = performance.now() - t0;
  }
  if (first === null) throw new Error("the stub sent no content");
  return first;
}

/** The relay answers once it can reach the stub: one request through it. */
async function waitForRelay(relayBase: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      await stubFirstToken(relayBase);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error("the relay did not start");
}

function complete(o: StreamOutcome): boolean {
  return o.events[0] === "meta" && o.events.at(-1) === "done" && o.text === REPLY &&
    typeof o.messageId === "number";
}

export async function run(): Promise<string> {
  const stub = startFakeAi({ reply: REPLY });
  const server = await startBenchServer({
    aiBaseUrl: stub.baseUrl,
    flags: Deno.env.get("BENCH_SERVER_FLAGS")?.split(" ").filter(Boolean),
  });
  const base = server.base;
  const relayPort = freePort();
  const relayBase = `http://127.0.0.1:${relayPort}`;
  const relay = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", RELAY],
    env: { PORT: String(relayPort), STUB_URL: stub.baseUrl },
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  try {
    await waitForRelay(relayBase);
    // Warm up both paths (JIT, connection pools, prepared statements).
    for (let i = 0; i < 20; i++) {
      await widgetStream(base, `v_warm_${i}`);
      await stubFirstToken(stub.baseUrl);
      await stubFirstToken(relayBase);
    }
    const idle = await memoryOf(server.process.pid);

    // 1. Time to first delta, sequential, alternating direct and through the server.
    const ttfd = async (samples: number, label: string) => {
      const direct: number[] = [];
      const relayed: number[] = [];
      const through: number[] = [];
      for (let i = 0; i < samples; i++) {
        direct.push(await stubFirstToken(stub.baseUrl));
        relayed.push(await stubFirstToken(relayBase));
        const o = await widgetStream(base, `v_${label}_${i}`);
        if (!complete(o) || o.firstDeltaMs === null) throw new Error("incomplete stream");
        through.push(o.firstDeltaMs);
      }
      return { direct, relayed, through };
    };
    const cpuBefore = await processCpuSeconds(server.process.pid);
    const { direct, relayed, through } = await ttfd(SAMPLES, "ttfd");
    const cpuAfter = await processCpuSeconds(server.process.pid);
    // Server CPU per whole message (stream to `done`, and what follows it
    // before the next): steadier than times when the machine is shared.
    const cpuPerMessage = cpuBefore === null || cpuAfter === null
      ? null
      : (cpuAfter - cpuBefore) * 1000 / SAMPLES;
    const overhead50 = percentile(through, 50) - percentile(direct, 50);
    const overhead90 = percentile(through, 90) - percentile(direct, 90);
    // 1b. The same with the stub's first token 100 ms late: the server's work
    // beside the provider's wait is hidden, what is left shows as overhead.
    stub.latencyMs = SLOW_FIRST_TOKEN_MS;
    const slow = await ttfd(SLOW_SAMPLES, "slow");
    stub.latencyMs = 0;
    const slow50 = percentile(slow.through, 50) - percentile(slow.direct, 50);
    const slow90 = percentile(slow.through, 90) - percentile(slow.direct, 90);

    // 2. Concurrent streams, every one checked complete.
    stub.chunkDelayMs = 5; // replies take ~150 ms, so the streams really overlap
    const t0 = performance.now();
    const outcomes = await Promise.allSettled(
      Array.from({ length: CONCURRENT }, (_, i) => widgetStream(base, `v_load_${i}`)),
    );
    const wall = performance.now() - t0;
    const ok = outcomes.filter((o) => o.status === "fulfilled" && complete(o.value));
    const ids = new Set(
      ok.map((o) => (o as PromiseFulfilledResult<StreamOutcome>).value.messageId),
    );
    const lost = CONCURRENT - ok.length;
    const firstDeltas = ok.map((o) => (o as PromiseFulfilledResult<StreamOutcome>).value)
      .map((o) => o.firstDeltaMs!);
    const loaded = await memoryOf(server.process.pid);
    const failures = outcomes.filter((o) => o.status === "rejected").slice(0, 3)
      .map((o) => String((o as PromiseRejectedResult).reason));
    // Streams that answered but did not finish: by their `error` code.
    const endings = new Map<string, number>();
    for (const o of outcomes) {
      if (o.status !== "fulfilled" || complete(o.value)) continue;
      const code = o.value.errorCode ?? `ended after ${o.value.events.at(-1) ?? "nothing"}`;
      endings.set(code, (endings.get(code) ?? 0) + 1);
    }
    const incomplete = [...endings].map(([code, n]) => `${n} ${code}`).join(", ");

    const db = Deno.env.get("DATABASE_URL") ? "PostgreSQL (DATABASE_URL)" : "embedded PGlite";
    const f = (n: number) => n.toFixed(2);
    return [
      "## Widget streaming",
      "",
      `Server: \`main.ts\` in its own process, ${db}, in-process Kv, request log off; stub ` +
      "provider (tests/helpers/fake_ai.ts) and the load in the bench process. " +
      `Machine: ${navigator.hardwareConcurrency} cores. Command: \`deno task bench widget_stream\`.`,
      "",
      `### Time to first delta (${SAMPLES} sequential samples)`,
      "",
      "| | p50 ms | p90 ms |",
      "|---|---|---|",
      `| stub's own first token (direct) | ${f(percentile(direct, 50))} | ${
        f(percentile(direct, 90))
      } |`,
      `| first \`delta\` through the server | ${f(percentile(through, 50))} | ${
        f(percentile(through, 90))
      } |`,
      `| **server overhead** (goal < 3 ms p50) | **${f(overhead50)}** | ${f(overhead90)} |`,
      `| a bare relay's first token (Deno.serve + fetch, the body piped) | ${
        f(percentile(relayed, 50))
      } | ${f(percentile(relayed, 90))} |`,
      `| the floor: what the bare relay adds over the stub | ${
        f(percentile(relayed, 50) - percentile(direct, 50))
      } | ${f(percentile(relayed, 90) - percentile(direct, 90))} |`,
      "",
      `Server CPU per message (user + system, the sequential samples): ${
        cpuPerMessage === null ? "n/a" : `${f(cpuPerMessage)} ms`
      }.`,
      "",
      `With the stub's first token ${SLOW_FIRST_TOKEN_MS} ms late (${SLOW_SAMPLES} samples):`,
      "",
      "| | p50 ms | p90 ms |",
      "|---|---|---|",
      `| stub's own first token (direct) | ${f(percentile(slow.direct, 50))} | ${
        f(percentile(slow.direct, 90))
      } |`,
      `| first \`delta\` through the server | ${f(percentile(slow.through, 50))} | ${
        f(percentile(slow.through, 90))
      } |`,
      `| **server overhead, provider 100 ms** (goal < 1 ms p50) | **${f(slow50)}** | ${
        f(slow90)
      } |`,
      `| the floor: what the bare relay adds over the stub | ${
        f(percentile(slow.relayed, 50) - percentile(slow.direct, 50))
      } | ${f(percentile(slow.relayed, 90) - percentile(slow.direct, 90))} |`,
      "",
      "The floor is a bare relay's own overhead in the same alternation (bench/relay_floor_server.ts:",
      "Deno.serve forwarding to the stub with the runtime's fetch, the body piped back): one more",
      "process and HTTP hop, which the server's overhead contains as well.",
      "",
      "The overhead includes everything the server does before the provider's first token:",
      "rate limit, body validation, bot lookup, the visitor-turn transaction (conversation,",
      "quota, message), knowledge retrieval (including the stub's embedding call), the prompt,",
      "and relaying the token as an SSE frame.",
      "",
      `### ${CONCURRENT} concurrent streams`,
      "",
      "| | |",
      "|---|---|",
      `| completed (meta … done, full text, stored reply id) | ${ok.length} / ${CONCURRENT} |`,
      `| lost | ${lost}${failures.length ? ` (${failures.join("; ")})` : ""}${
        incomplete ? ` (streams that ended early: ${incomplete})` : ""
      } |`,
      `| distinct stored reply ids | ${ids.size} |`,
      `| wall time | ${(wall / 1000).toFixed(2)} s |`,
      `| first delta under load, p50 / p90 | ${f(percentile(firstDeltas, 50))} / ${
        f(percentile(firstDeltas, 90))
      } ms |`,
      `| server memory idle (RSS) | ${idle.rss.toFixed(0)} MiB |`,
      `| server peak memory (VmHWM) | ${loaded.peak.toFixed(0)} MiB |`,
    ].join("\n");
  } finally {
    try {
      relay.kill("SIGTERM");
    } catch { /* already gone */ }
    await relay.status;
    await server.stop();
    await stub.close();
  }
}

if (import.meta.main) console.log(await run());
