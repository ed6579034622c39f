/**
 * Who is answering a keyed visitor message. A request carrying an idempotency
 * key takes this lock (through Kv, so across instances) as it starts, beside
 * its first query and not in front of the provider call, and gives it back
 * once its reply is stored or has failed. Only the holder writes the message
 * (and may start its provider call before the write): a concurrent duplicate
 * waits for it (replay_visitor_turn.ts, claimKeyedTurn). A retry of a stored
 * message whose reply is not there yet knows whether the first request is
 * still at work (wait for its reply) or gone (answer it now): never two
 * provider calls for one message.
 *
 * The lock is short and renewed while its holder works: an instance that dies
 * holding it (SIGKILL, a crash) stops renewing, and the lock lapses within
 * ANSWERING_TTL_MS, so the retry that nginx or the client sends elsewhere
 * answers the message within seconds instead of waiting out a long expiry.
 * The renewal runs on a timer beside the request, never in front of it.
 */
import type { Kv } from "../../kv/kv.ts";

/** How long a lock outlives its holder's last renewal: a dead instance's lock is gone by then. */
export const ANSWERING_TTL_MS = 6_000;
/** Renewed three times a lifetime: two renewals may be late (a busy event loop, a slow Redis). */
const RENEW_EVERY_MS = ANSWERING_TTL_MS / 3;
/**
 * Renewal stops after this even if the lock was never given back (a request
 * is bounded far below it: provider calls, the replay wait), so no path can
 * keep a key locked, or a timer running, for good.
 */
const MAX_HOLD_MS = 5 * 60_000;

export interface AnsweringLock {
  /** Whether this request holds the lock (Redis unreachable counts as held: best effort). */
  readonly held: Promise<boolean>;
  /** Try again to take a lock not held; resolves whether it is held now. */
  retake(): Promise<boolean>;
  /** Give the lock back if held, and stop renewing it; safe to call more than once. */
  release(): void;
}

/** Start taking the lock for `clientKey` on the bot `botKey`; never throws. */
export function takeAnsweringLock(kv: Kv, botKey: string, clientKey: string): AnsweringLock {
  const key = `answering:${botKey}:${clientKey}`;
  // Only this request renews or releases what it took, even after it lapsed.
  const owner = crypto.randomUUID();
  let released = false;
  let renewal: ReturnType<typeof setInterval> | undefined;
  const stopRenewing = () => {
    clearInterval(renewal);
    renewal = undefined;
  };
  const keepRenewing = () => {
    if (released || renewal !== undefined) return;
    const until = performance.now() + MAX_HOLD_MS;
    renewal = setInterval(() => {
      if (performance.now() > until) return stopRenewing();
      kv.renew(key, owner, ANSWERING_TTL_MS).then(
        // Lapsed and perhaps taken by another: the stored reply's unique key still
        // keeps the answer single; a renewal that could not reach Redis tries again.
        (still) => {
          if (!still) stopRenewing();
        },
        () => {},
      );
    }, RENEW_EVERY_MS);
    // A stopping instance waits for its requests, not for their locks' timers.
    Deno.unrefTimer(renewal);
  };
  const acquire = () =>
    kv.acquire(key, ANSWERING_TTL_MS, owner).then((ok) => {
      if (ok) keepRenewing();
      return ok;
    }, () => true);
  let held = acquire();
  return {
    get held() {
      return held;
    },
    async retake() {
      if (released) return false;
      if (!await held) held = acquire();
      return await held;
    },
    release() {
      if (released) return;
      released = true;
      stopRenewing();
      held.then((ok) => ok ? kv.release(key, owner) : undefined).catch(() => {});
    },
  };
}

/** No key, no lock: the request answers as any other. */
export const NO_LOCK: AnsweringLock = {
  held: Promise.resolve(true),
  retake: () => Promise.resolve(true),
  release() {},
};
