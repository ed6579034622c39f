/** Wait for background work seen over HTTP: poll until `check` returns a value. */
export async function pollUntil<T>(
  check: () => Promise<T | null | undefined | false>,
  what: string,
  timeoutMs = 20_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await check();
    if (v) return v;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
}
