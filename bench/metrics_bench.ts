/**
 * The cost of Prometheus metrics on the hot path (docs/operations.md): two
 * servers as shipped, side by side in one run, one without METRICS_TOKEN
 * (nothing kept) and one with it (every request, stream, provider call,
 * retrieval and event counted) and scraped every 5 s as Prometheus would.
 *
 * 1. First delta: widget streams, one to each server per round, the order
 *    swapped every round, so load from other work on the machine falls on
 *    both alike. The stub provider answers at once, so the server's own
 *    work is all there is to see.
 * 2. REST door: `wrk` (one thread, 50 connections) on `GET /api/status`,
 *    alternating off, on, on, off…; requests per second and, steadier on a
 *    shared machine, the server's CPU time per request (from /proc).
 * 3. The recording itself, timed in a loop here (what one request and one
 *    widget message add), set against the CPU per request and per message
 *    of step 1 and 2: a bound that the machine's other load moves far less
 *    than end-to-end times.
 */
import { startFakeAi } from "../tests/helpers/fake_ai.ts";
import { standardSeed } from "../tests/helpers/fixtures.ts";
import { freePort, percentile, processCpuSeconds, waitFor } from "./support.ts";
import {
  enableMetrics,
  recordEventPublished,
  recordHttpRequest,
  recordProviderCall,
  recordRetrieval,
  watchStream,
} from "../domain/observability/metrics.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const KEY = "acme-helper";
const SAMPLES = Number(Deno.env.get("BENCH_METRICS_SAMPLES") ?? "200");
const WRK_SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? "6");
const WRK_ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? "3");
const TOKEN = "bench-metrics-token-0123456789";
const SCRAPE_EVERY_MS = 5000;
const REPLY = "Our support desk is open Monday to Friday, from nine to five.";

interface Server {
  name: "off" | "on";
  base: string;
  child: Deno.ChildProcess;
  dataDir: string;
}

async function startServer(name: "off" | "on", aiBaseUrl: string): Promise<Server> {
  const dataDir = await Deno.makeTempDir({ prefix: `parley-bench-metrics-${name}-` });
  const seed = standardSeed();
  seed.workspaces[0]!.plan = "unlimited";
  await Deno.writeTextFile(`${dataDir}/seed.json`, JSON.stringify(seed));
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN],
    env: {
      PORT: String(port),
      REALTIME_PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      SEED_FILE: `${dataDir}/seed.json`,
      DEMO: "0",
      DATABASE_URL: "",
      REDIS_URL: "",
      LOG_LEVEL: "error",
      AI_BASE_URL: aiBaseUrl,
      TRUSTED_PROXIES: "127.0.0.1",
      ...(name === "on" ? { METRICS_TOKEN: TOKEN } : {}),
    },
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/readyz`);
  return { name, base, child, dataDir };
}

async function stopServer(s: Server): Promise<void> {
  try {
    s.child.kill("SIGTERM");
  } catch { /* already gone */ }
  await s.child.status;
  await Deno.remove(s.dataDir, { recursive: true }).catch(() => {});
}

let ipSeq = 0;

/** One widget stream read to its end; the first `delta`'s time from the request's start. */
async function firstDelta(base: string, visitor: string): Promise<number> {
  const n = ++ipSeq;
  const t0 = performance.now();
  const res = await fetch(`${base}/widget/${KEY}/stream`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-forwarded-for": `10.9.${(n >> 8) & 255}.${n & 255}`,
    },
    body: JSON.stringify({ visitor_id: visitor, message: "When are you open?" }),
  });
  if (res.status !== 200) throw new Error(`stream answered ${res.status}: ${await res.text()}`);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let first: number | null = null;
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
    if (first === null && text.includes("event: delta")) first = performance.now() - t0;
  }
  if (first === null || !text.includes("event: done")) throw new Error("incomplete stream");
  return first;
}

async function wrk(url: string): Promise<number> {
  const out = await new Deno.Command("wrk", {
    args: ["-t1", "-c50", `-d${WRK_SECONDS}s`, url],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const m = /Requests\/sec:\s+([\d.]+)/.exec(text);
  if (!m) throw new Error(`wrk printed no rate: ${text}`);
  if (/Non-2xx/.test(text)) throw new Error(`wrk saw errors against ${url}: ${text}`);
  return Number(m[1]);
}

async function loadAverage(): Promise<string> {
  try {
    return (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
  } catch {
    return "n/a";
  }
}

const median = (xs: number[]) => percentile(xs, 0.5);

/** Nanoseconds per call of `fn`, best of five loops of `n`. */
function nsPerCall(n: number, fn: (i: number) => void): number {
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) fn(i);
    best = Math.min(best, (performance.now() - t0) * 1e6 / n);
  }
  return best;
}

/** What metrics add to one request, and to one widget message, in this process. */
function recordingCost(): { request: number; message: number } {
  const stop = enableMetrics({
    sockets: () => ({ open: 0, subscriptions: {} }),
    jobs: () => Promise.resolve([]),
    pool: () => Promise.resolve({ size: 1, inUse: 0, idle: 0 }),
    turnsStoring: () => 0,
  });
  try {
    const routes = ["/api/status", "/api/v1/chatbots/{key}", "/widget/{key}/stream"];
    const request = nsPerCall(
      1_000_000,
      (i) => recordHttpRequest(routes[i % 3]!, "GET", 200, 0.004),
    );
    // A widget message: its request, stream, provider call, retrieval and three events.
    const message = nsPerCall(100_000, () => {
      recordHttpRequest("/widget/{key}/stream", "POST", 200, 0.01);
      const watch = watchStream(performance.now());
      recordRetrieval(0.003);
      watch.firstDelta();
      recordProviderCall(
        { provider: "provider_1", model: "gpt-4o-mini", operation: "chat" },
        "ok",
        0.02,
        { in: 900, out: 40 },
      );
      recordEventPublished("conversation.created");
      recordEventPublished("message.created");
      recordEventPublished("message.created");
      watch.end("ai");
    });
    return { request, message };
  } finally {
    stop();
  }
}
const pct = (on: number, off: number) => `${((on / off - 1) * 100).toFixed(1)}%`;

export async function run(): Promise<string> {
  const stub = startFakeAi({ reply: REPLY });
  const servers: Server[] = [];
  let scraper: ReturnType<typeof setInterval> | undefined;
  try {
    const off = await startServer("off", stub.baseUrl);
    servers.push(off);
    const on = await startServer("on", stub.baseUrl);
    servers.push(on);
    let scrapes = 0;
    scraper = setInterval(() => {
      fetch(`${on.base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
        .then((r) => r.arrayBuffer()).then(() => scrapes++).catch(() => {});
    }, SCRAPE_EVERY_MS);
    const loadBefore = await loadAverage();

    // 1. First delta, interleaved.
    for (let i = 0; i < 20; i++) {
      await firstDelta(off.base, `v_warm_off_${i}`);
      await firstDelta(on.base, `v_warm_on_${i}`);
    }
    const times: Record<string, number[]> = { off: [], on: [] };
    const cpu0 = {
      off: await processCpuSeconds(off.child.pid),
      on: await processCpuSeconds(on.child.pid),
    };
    for (let i = 0; i < SAMPLES; i++) {
      const order = i % 2 === 0 ? [off, on] : [on, off];
      for (const s of order) times[s.name]!.push(await firstDelta(s.base, `v_${s.name}_${i}`));
    }
    const cpuPerMessage = async (s: Server) => {
      const before = cpu0[s.name];
      const after = await processCpuSeconds(s.child.pid);
      return before === null || after === null ? null : (after - before) * 1000 / SAMPLES;
    };
    const streamCpu = { off: await cpuPerMessage(off), on: await cpuPerMessage(on) };

    // 2. REST door, alternating.
    const rest: Record<string, { rps: number; cpuUs: number | null }[]> = { off: [], on: [] };
    for (const s of [off, on]) await wrk(`${s.base}/api/status`); // warm-up
    for (let r = 0; r < WRK_ROUNDS; r++) {
      for (const s of r % 2 === 0 ? [off, on] : [on, off]) {
        const before = await processCpuSeconds(s.child.pid);
        const rps = await wrk(`${s.base}/api/status`);
        const after = await processCpuSeconds(s.child.pid);
        const cpuUs = before === null || after === null
          ? null
          : (after - before) * 1e6 / (rps * WRK_SECONDS);
        rest[s.name]!.push({ rps, cpuUs });
      }
    }
    const cost = recordingCost();
    const loadAfter = await loadAverage();
    const f = (n: number | null, d = 2) => (n === null ? "n/a" : n.toFixed(d));
    const d50 = { off: median(times.off!), on: median(times.on!) };
    const d90 = { off: percentile(times.off!, 0.9), on: percentile(times.on!, 0.9) };
    const rps = {
      off: median(rest.off!.map((x) => x.rps)),
      on: median(rest.on!.map((x) => x.rps)),
    };
    const cpuOf = (name: string) => {
      const xs = rest[name]!.map((x) => x.cpuUs).filter((x): x is number => x !== null);
      return xs.length ? median(xs) : null;
    };
    const restCpu = { off: cpuOf("off"), on: cpuOf("on") };
    const ratio = (on: number | null, off: number | null) =>
      on === null || off === null ? "n/a" : pct(on, off);
    return [
      "## Metrics on the hot path",
      "",
      "Two servers as shipped (`main.ts`, embedded PGlite, in-process Kv, request log off), one " +
      `without \`METRICS_TOKEN\` (off) and one with it (on, scraped every ${
        SCRAPE_EVERY_MS / 1000
      } s: ${scrapes} scrapes), measured in one run, interleaved. Stub provider answering at ` +
      `once. Machine: ${navigator.hardwareConcurrency} cores, shared with other engineers' ` +
      `work (load average ${loadBefore} before, ${loadAfter} after). Command: ` +
      "`deno task bench metrics`.",
      "",
      `### First delta (${SAMPLES} streams per server, alternating)`,
      "",
      "| | off | on | on vs off |",
      "|---|---|---|---|",
      `| first \`delta\`, p50 ms | ${f(d50.off)} | ${f(d50.on)} | ${pct(d50.on, d50.off)} |`,
      `| first \`delta\`, p90 ms | ${f(d90.off)} | ${f(d90.on)} | ${pct(d90.on, d90.off)} |`,
      `| server CPU per message, ms | ${f(streamCpu.off)} | ${f(streamCpu.on)} | ${
        ratio(streamCpu.on, streamCpu.off)
      } |`,
      "",
      `### REST door (\`GET /api/status\`, wrk 50 connections, ${WRK_ROUNDS} × ${WRK_SECONDS} s ` +
      "per server, medians)",
      "",
      "| | off | on | on vs off |",
      "|---|---|---|---|",
      `| requests/s | ${f(rps.off, 0)} | ${f(rps.on, 0)} | ${pct(rps.on, rps.off)} |`,
      `| server CPU per request, µs | ${f(restCpu.off, 1)} | ${f(restCpu.on, 1)} | ${
        ratio(restCpu.on, restCpu.off)
      } |`,
      "",
      `Rounds (requests/s): off ${rest.off!.map((x) => x.rps.toFixed(0)).join(", ")}; on ${
        rest.on!.map((x) => x.rps.toFixed(0)).join(", ")
      }.`,
      "",
      "### The recording itself (timed in a loop in the bench process)",
      "",
      "| | ns | share of the off server's CPU (above) |",
      "|---|---|---|",
      `| one request (counter and histogram) | ${f(cost.request, 0)} | ${
        restCpu.off === null ? "n/a" : `${(cost.request / (restCpu.off * 1000) * 100).toFixed(2)}%`
      } of a REST request |`,
      `| one widget message (request, stream, provider call, retrieval, 3 events) | ${
        f(cost.message, 0)
      } | ${
        streamCpu.off === null
          ? "n/a"
          : `${(cost.message / (streamCpu.off * 1e6) * 100).toFixed(3)}%`
      } of a message |`,
    ].join("\n");
  } finally {
    clearInterval(scraper);
    for (const s of servers) await stopServer(s);
    await stub.close();
  }
}

if (import.meta.main) console.log(await run());
