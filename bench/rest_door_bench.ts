/**
 * REST door vs bare `Deno.serve` and vs Hono's `OpenAPIHono` (the router a
 * team would reach for instead of ours: zod-validated routes with an OpenAPI
 * document), side by side on one trivial GET. The bare server and Hono parse
 * the same body through the same zod schema the procedure declares.
 *
 * Both servers run in their own subprocess; the load comes from `wrk` when it
 * is installed (one thread, 50 connections), else from a Deno fetch loop in a
 * third subprocess. Runs alternate bare, door, bare, door and keep the best
 * of each, because a 2-core machine shared with the load generator is noisy;
 * the servers' own CPU time per request (from /proc) gives a second ratio
 * that other load on the machine barely moves.
 * The door is measured as shipped: embedded database, JSON request log on
 * (to /dev/null), the real `GET /api/status` procedure with zod input and
 * output parsing.
 *
 * `BENCH_BASE=<commit>` adds that commit's door as a fourth server, in the
 * same alternating rounds, so a change to the door is measured against its
 * base in one run (the base's source is extracted by base_tree.ts and runs
 * with this tree's dependencies).
 */

import { freePort, processCpuSeconds, waitFor } from "./support.ts";
import { baseTree, SERVER_SOURCES, shortCommit } from "./base_tree.ts";

const SELF = new URL(import.meta.url).pathname;
const MAIN = new URL("../main.ts", import.meta.url).pathname;
const CONNECTIONS = 50;
const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? "8");
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? "2");
const BASE = Deno.env.get("BENCH_BASE") || null;
const CONFIG = new URL("../deno.json", import.meta.url).pathname;

async function hasWrk(): Promise<boolean> {
  try {
    const out = await new Deno.Command("wrk", {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    })
      .output();
    return out.code === 0 || out.code === 1; // wrk --version exits 1 after printing
  } catch {
    return false;
  }
}

interface Run {
  rps: number;
  /** Server CPU per request in µs: stable even when the machine is shared. */
  cpuUs: number | null;
}

/** One load run against `url`, with the server's CPU per request. */
async function measure(url: string, pid: number, seconds: number, useWrk: boolean): Promise<Run> {
  const before = await processCpuSeconds(pid);
  const rps = await load(url, seconds, useWrk);
  const after = await processCpuSeconds(pid);
  const cpuUs = before === null || after === null
    ? null
    : ((after - before) * 1e6) / (rps * seconds);
  return { rps, cpuUs };
}

/** Requests per second from one load run against `url`. */
async function load(url: string, seconds: number, useWrk: boolean): Promise<number> {
  if (useWrk) {
    const out = await new Deno.Command("wrk", {
      args: ["-t1", `-c${CONNECTIONS}`, `-d${seconds}s`, url],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    const m = /Requests\/sec:\s+([\d.]+)/.exec(text);
    if (!m) throw new Error(`wrk printed no rate: ${text}`);
    if (/Non-2xx/.test(text)) throw new Error(`wrk saw errors against ${url}: ${text}`);
    return Number(m[1]);
  }
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SELF, "load", url, String(CONNECTIONS), String(seconds)],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const result = JSON.parse(new TextDecoder().decode(out.stdout)) as { rps: number };
  return result.rps;
}

function spawn(args: string[], env: Record<string, string>): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args,
    env,
    stdout: "null",
    stderr: "null",
  }).spawn();
}

async function stop(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill("SIGTERM");
  } catch { /* already gone */ }
  await child.status;
}

export async function run(): Promise<string> {
  const useWrk = await hasWrk();
  const barePort = freePort();
  const doorPort = freePort();
  const dataDir = await Deno.makeTempDir({ prefix: "parley-bench-" });
  const honoPort = freePort();
  const bare = spawn(["run", "-A", SELF, "bare", String(barePort)], {});
  const hono = spawn(["run", "-A", SELF, "hono", String(honoPort)], {});
  const doorEnv = (port: number, dir: string) => ({
    PORT: String(port),
    HOST: "127.0.0.1",
    REALTIME_PORT: String(freePort()),
    DATA_DIR: dir,
    DEMO: "0",
    DATABASE_URL: "",
    REDIS_URL: "",
    LOG_LEVEL: "info",
  });
  const door = spawn(["run", "-A", MAIN], doorEnv(doorPort, dataDir));
  const basePort = freePort();
  const baseDataDir = BASE ? await Deno.makeTempDir({ prefix: "parley-bench-base-" }) : null;
  const baseLabel = BASE ? await shortCommit(BASE) : null;
  const baseDoor = BASE
    ? spawn(
      [
        "run",
        "-A",
        "--config",
        CONFIG,
        new URL("main.ts", await baseTree(BASE, SERVER_SOURCES)).pathname,
      ],
      doorEnv(basePort, baseDataDir!),
    )
    : null;
  const baseUrl = `http://127.0.0.1:${basePort}/api/status`;
  const bareUrl = `http://127.0.0.1:${barePort}/api/status`;
  const doorUrl = `http://127.0.0.1:${doorPort}/api/status`;
  const honoUrl = `http://127.0.0.1:${honoPort}/api/status`;
  try {
    await waitFor(bareUrl);
    await waitFor(honoUrl);
    await waitFor(`http://127.0.0.1:${doorPort}/readyz`);
    if (baseDoor) await waitFor(`http://127.0.0.1:${basePort}/readyz`);
    // Warm every server (JIT, connection setup) before anything is recorded.
    await load(bareUrl, 2, useWrk);
    await load(doorUrl, 2, useWrk);
    await load(honoUrl, 2, useWrk);
    if (baseDoor) await load(baseUrl, 2, useWrk);
    const bareRuns: Run[] = [];
    const doorRuns: Run[] = [];
    const honoRuns: Run[] = [];
    const baseRuns: Run[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      bareRuns.push(await measure(bareUrl, bare.pid, SECONDS, useWrk));
      doorRuns.push(await measure(doorUrl, door.pid, SECONDS, useWrk));
      honoRuns.push(await measure(honoUrl, hono.pid, SECONDS, useWrk));
      if (baseDoor) baseRuns.push(await measure(baseUrl, baseDoor.pid, SECONDS, useWrk));
    }
    const bestBare = Math.max(...bareRuns.map((r) => r.rps));
    const bestDoor = Math.max(...doorRuns.map((r) => r.rps));
    const bestHono = Math.max(...honoRuns.map((r) => r.rps));
    const ratio = bestDoor / bestBare;
    const median = (runs: Run[]) => {
      const v = runs.map((r) => r.cpuUs).filter((x): x is number => x !== null).sort((a, b) =>
        a - b
      );
      return v.length ? v[Math.floor(v.length / 2)]! : null;
    };
    const bareCpu = median(bareRuns);
    const doorCpu = median(doorRuns);
    const honoCpu = median(honoRuns);
    const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
    const us = (n: number | null) => (n === null ? "n/a" : n.toFixed(1));
    const tool = useWrk
      ? `wrk -t1 -c${CONNECTIONS} -d${SECONDS}s`
      : `Deno fetch loop, ${CONNECTIONS} concurrent requests, ${SECONDS} s`;
    return [
      "## REST door vs bare Deno.serve",
      "",
      `Trivial GET, ${tool}, best of ${ROUNDS} alternating runs (bare, door, Hono${
        baseDoor ? ", base door" : ""
      }) after a 2 s ` +
      "warm-up each.",
      "",
      "| Server | Path | req/s (runs) | best req/s | server CPU µs/request (median) |",
      "|---|---|---|---|---|",
      `| bare \`Deno.serve\` | \`/api/status\` (zod-parsed body) | ${
        bareRuns.map((r) => fmt(r.rps)).join(", ")
      } | ${fmt(bestBare)} | ${us(bareCpu)} |`,
      `| Parley REST door | \`GET /api/status\` (procedure, zod in/out, JSON log) | ${
        doorRuns.map((r) => fmt(r.rps)).join(", ")
      } | ${fmt(bestDoor)} | ${us(doorCpu)} |`,
      `| Hono \`OpenAPIHono\` | \`/api/status\` (createRoute, zod response) | ${
        honoRuns.map((r) => fmt(r.rps)).join(", ")
      } | ${fmt(bestHono)} | ${us(honoCpu)} |`,
      ...(baseDoor
        ? [
          `| Parley REST door at ${baseLabel} (base) | \`GET /api/status\` | ${
            baseRuns.map((r) => fmt(r.rps)).join(", ")
          } | ${fmt(Math.max(...baseRuns.map((r) => r.rps)))} | ${us(median(baseRuns))} |`,
        ]
        : []),
      "",
      `**Door against OpenAPIHono (best/best): ${(bestDoor / bestHono).toFixed(2)}×** ` +
      "(goal: ahead, > 1).",
      "",
      `**Throughput ratio (best/best): ${(ratio * 100).toFixed(1)}%** of bare \`Deno.serve\` ` +
      "(goal ≥ 75%)." +
      (bareCpu !== null && doorCpu !== null
        ? ` **CPU-cost ratio: ${(bareCpu / doorCpu * 100).toFixed(1)}%**: bare's server CPU per ` +
          "request over the door's, the capacity ratio on an idle core, robust to other load."
        : ""),
    ].join("\n");
  } finally {
    await stop(bare);
    await stop(door);
    await stop(hono);
    if (baseDoor) await stop(baseDoor);
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    if (baseDataDir) await Deno.remove(baseDataDir, { recursive: true }).catch(() => {});
  }
}

/** Subprocess roles: the bare server, and the fallback load generator. */
async function subprocessMain(args: string[]): Promise<void> {
  const [role, a, b, c] = args;
  if (role === "bare") {
    const { z } = await import("zod");
    const schema = z.object({ status: z.literal("ok"), version: z.string() });
    Deno.serve(
      { port: Number(a), hostname: "127.0.0.1", onListen: () => {} },
      () =>
        new Response(JSON.stringify(schema.parse({ status: "ok", version: "1.0.0" })), {
          headers: { "content-type": "application/json; charset=utf-8" },
        }),
    );
    return;
  }
  if (role === "hono") {
    const { OpenAPIHono, createRoute, z } = await import("@hono/zod-openapi");
    const app = new OpenAPIHono();
    const route = createRoute({
      method: "get",
      path: "/api/status",
      responses: {
        200: {
          description: "Service status",
          content: {
            "application/json": {
              schema: z.object({ status: z.literal("ok"), version: z.string() }),
            },
          },
        },
      },
    });
    app.openapi(route, (c) => c.json({ status: "ok" as const, version: "1.0.0" }, 200));
    Deno.serve({ port: Number(a), hostname: "127.0.0.1", onListen: () => {} }, app.fetch);
    return;
  }
  if (role === "load") {
    const url = a!;
    const conns = Number(b);
    const until = performance.now() + Number(c) * 1000;
    let done = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: conns }, async () => {
      while (performance.now() < until) {
        const res = await fetch(url);
        await res.arrayBuffer();
        done++;
      }
    }));
    const seconds = (performance.now() - started) / 1000;
    console.log(JSON.stringify({ rps: done / seconds }));
  }
}

if (import.meta.main) await subprocessMain(Deno.args);
