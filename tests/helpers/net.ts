/** Loopback helpers for tests and benchmarks that run servers in subprocesses. */

/** A free TCP port on the loopback interface, for subprocess servers. */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Poll `url` until it answers 200, or fail after `timeoutMs`. */
export async function waitReady(url: string, timeoutMs = 90_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const res = await fetch(url);
      await res.body?.cancel();
      if (res.ok) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} was not ready within ${timeoutMs} ms`);
}
