/** Helpers the benchmarks share: free ports, readiness polling, and which database to measure on. */

import { freePort, waitReady } from "../tests/helpers/net.ts";
import { standardSeed } from "../tests/helpers/fixtures.ts";

export { freePort, waitReady as waitFor };

const MAIN = new URL("../main.ts", import.meta.url).pathname;

/** `main.ts` as shipped, in a process of its own: its memory and CPU are its own. */
export interface BenchServer {
  base: string;
  process: Deno.ChildProcess;
  /** Stop the process and remove its data dir. */
  stop(): Promise<void>;
}

/**
 * The server on a fresh data dir (embedded unless DATABASE_URL is set),
 * seeded with the test fixtures on an unlimited plan (thousands of messages
 * must not hit the quota), answering through the AI at `aiBaseUrl`, request
 * log off, and trusting X-Forwarded-For from 127.0.0.1 so each request can
 * carry an address of its own past the per-IP limits. Resolves once it answers.
 */
export async function startBenchServer(opts: {
  aiBaseUrl: string;
  /** Deno flags before main.ts (`--inspect=…`). */
  flags?: string[];
  stderr?: "inherit" | "null";
}): Promise<BenchServer> {
  const dataDir = await Deno.makeTempDir({ prefix: "parley-bench-" });
  const seed = standardSeed();
  seed.workspaces[0]!.plan = "unlimited";
  await Deno.writeTextFile(`${dataDir}/seed.json`, JSON.stringify(seed));
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const process = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...(opts.flags ?? []), MAIN],
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      SEED_FILE: `${dataDir}/seed.json`,
      DEMO: "0",
      LOG_LEVEL: "error",
      AI_BASE_URL: opts.aiBaseUrl,
      TRUSTED_PROXIES: "127.0.0.1",
      REALTIME_PORT: "0", // not PORT + 1, which freePort() may have given another process
      ...(Deno.env.get("DATABASE_URL") ? { DATABASE_URL: Deno.env.get("DATABASE_URL")! } : {}),
      ...(Deno.env.get("APP_KEY") ? { APP_KEY: Deno.env.get("APP_KEY")! } : {}),
    },
    stdout: "null",
    stderr: opts.stderr ?? "inherit",
  }).spawn();
  const stop = async () => {
    try {
      process.kill("SIGTERM");
    } catch { /* already gone */ }
    await process.status;
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  };
  try {
    await waitReady(`${base}/healthz`);
  } catch (err) {
    await stop();
    throw err;
  }
  return { base, process, stop };
}

/** Resident memory of a process in MiB: current (VmRSS) and peak (VmHWM). */
export async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

/** The real PostgreSQL to measure on: BENCH_DATABASE_URL, DATABASE_URL, or the local default when it answers. */
export async function realPostgresUrl(): Promise<string | null> {
  const given = Deno.env.get("BENCH_DATABASE_URL") ?? Deno.env.get("DATABASE_URL");
  if (given) return given;
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: 5432 });
    conn.close();
    return "postgres://postgres@127.0.0.1:5432/postgres";
  } catch {
    return null;
  }
}

/** Run `fn` with DATABASE_URL set to `url` (null: embedded), restoring it after. */
export async function withDatabase<T>(url: string | null, fn: () => Promise<T>): Promise<T> {
  const before = Deno.env.get("DATABASE_URL");
  if (url) Deno.env.set("DATABASE_URL", url);
  else Deno.env.delete("DATABASE_URL");
  try {
    return await fn();
  } finally {
    if (before === undefined) Deno.env.delete("DATABASE_URL");
    else Deno.env.set("DATABASE_URL", before);
  }
}

/** `measure` on the embedded database, then on the real PostgreSQL when there is one. */
export async function onEachDatabase<T>(measure: () => Promise<T>): Promise<T[]> {
  const results = [await withDatabase(null, measure)];
  const pg = await realPostgresUrl();
  if (pg) results.push(await withDatabase(pg, measure));
  return results;
}

/** The value at fraction `p` (0.5 is the median) of `values`. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

/**
 * Times `samples` sequential requests after `warmUp` unmeasured ones; each
 * call gets its own index (ids stay unique across warm-up and samples).
 */
export async function timeRequests(
  call: (i: number) => Promise<Response>,
  opts: { samples: number; warmUp: number },
): Promise<number[]> {
  for (let i = 0; i < opts.warmUp; i++) await (await call(i)).arrayBuffer();
  const times: number[] = [];
  for (let i = 0; i < opts.samples; i++) {
    const t0 = performance.now();
    const res = await call(opts.warmUp + i);
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    times.push(performance.now() - t0);
  }
  return times;
}

/** CPU seconds (user + system, all threads) a process has used so far; null off Linux. */
export async function processCpuSeconds(pid: number): Promise<number | null> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}
