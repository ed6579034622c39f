/** Helpers the benchmarks share: free ports, readiness polling, and which database to measure on. */

export { freePort, waitReady as waitFor } from "../tests/helpers/net.ts";

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
