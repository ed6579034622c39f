/**
 * Who is answering a keyed visitor message. A request carrying an idempotency
 * key takes this lock (through Kv, so across instances) as it starts, beside
 * its first query and not in front of the provider call, and gives it back
 * once its reply is stored or has failed. Only the holder writes the message
 * (and may start its provider call before the write): a concurrent duplicate
 * waits for it (replay_visitor_turn.ts, claimKeyedTurn). A retry of a stored
 * message whose reply is not there yet knows whether the first request is
 * still at work (wait for its reply) or gone (answer it now): never two
 * provider calls for one message. The lock outlives any reply (a provider call is bounded
 * far below it) and expires by itself if an instance dies holding it.
 */
import type { Kv } from "../../kv/kv.ts";

const ANSWERING_TTL_MS = 5 * 60_000;

export interface AnsweringLock {
  /** Whether this request holds the lock (Redis unreachable counts as held: best effort). */
  readonly held: Promise<boolean>;
  /** Try again to take a lock not held; resolves whether it is held now. */
  retake(): Promise<boolean>;
  /** Give the lock back if held; safe to call more than once. */
  release(): void;
}

/** Start taking the lock for `clientKey` on the bot `botKey`; never throws. */
export function takeAnsweringLock(kv: Kv, botKey: string, clientKey: string): AnsweringLock {
  const key = `answering:${botKey}:${clientKey}`;
  const acquire = () => kv.acquire(key, ANSWERING_TTL_MS).catch(() => true);
  let held = acquire();
  let released = false;
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
      held.then((ok) => ok ? kv.release(key) : undefined).catch(() => {});
    },
  };
}

/** No key, no lock: the request answers as any other. */
export const NO_LOCK: AnsweringLock = {
  held: Promise.resolve(true),
  retake: () => Promise.resolve(true),
  release() {},
};
