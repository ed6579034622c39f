/** Helpers the benchmarks share: free ports, readiness polling, and which database to measure on. */

/** A port nothing listens on right now. */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Poll `url` until it answers 2xx, or fail after `timeoutMs`. */
export async function waitFor(url: string, timeoutMs = 90_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const res = await fetch(url);
      await res.body?.cancel();
      if (res.ok) return;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
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
