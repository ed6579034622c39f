/**
 * Requests in hand, for work that shares the embedded database's one
 * connection in the background (webhook delivery, jobs, the batches of a CSV
 * export): it waits for a moment with no request being handled, so its
 * statements do not queue in front of a reply's, and may ask how long that
 * moment has lasted. A request counts until its handler returns the response
 * (a stream's body, and the provider call behind it, no longer count).
 * Background work is never starved: after `maxWaitMs` it goes ahead anyway.
 */
import type { Traffic } from "../domain/deps.ts";

export function createTraffic(): Traffic {
  let active = 0;
  let idleSince = performance.now();
  let waiters: (() => void)[] = [];
  const release = () => {
    const now = waiters;
    waiters = [];
    for (const resolve of now) resolve();
  };
  return {
    enter() {
      active++;
    },
    leave() {
      if (--active > 0) return;
      idleSince = performance.now();
      if (waiters.length) release();
    },
    idleMs() {
      return active > 0 ? 0 : performance.now() - idleSince;
    },
    quiet(maxWaitMs) {
      if (active === 0) return undefined;
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, maxWaitMs);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
