/** Polls `check` until it holds, or fails naming `what` after `ms` (no fixed sleeps in tests). */
export async function waitUntil(
  check: () => Promise<boolean> | boolean,
  what: string,
  ms = 10_000,
): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
