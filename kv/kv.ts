/**
 * What Redis does for us, as one small interface: fixed-window counters (rate
 * limits, lockouts), short locks, and pub/sub fan-out across instances. The
 * in-process implementation serves a single instance with no Redis.
 */

export interface Counter {
  /** Count within the current window, this hit included. */
  count: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

export type Unsubscribe = () => Promise<void>;

/** The answer to `claim`. */
export interface Claim {
  /** Whether a slot was taken; false once spent and pending slots reach the limit. */
  granted: boolean;
  /** Milliseconds until the budget's window ends. */
  resetMs: number;
}

/**
 * How a claimed slot ends: `spent` keeps it counted (a failed login),
 * `refunded` gives it back (nothing was decided), `cleared` gives it back and
 * forgets every slot spent so far (a successful login).
 */
export type SlotOutcome = "spent" | "refunded" | "cleared";

/**
 * Redis could not be reached, or did not answer in time: the command may or
 * may not have run. The doors answer 503 with Retry-After; best-effort uses
 * (wake-ups, caches, event fan-out) carry on without it.
 */
export class KvUnavailable extends Error {
  constructor(cause: unknown) {
    super("Redis is unavailable.", { cause });
    this.name = "KvUnavailable";
  }
}

export interface Kv {
  /** Increment `key`, starting a window of `windowMs` on the first hit. */
  hit(key: string, windowMs: number): Promise<Counter>;
  /** Current count without incrementing (0 when absent). */
  peek(key: string): Promise<Counter>;
  del(key: string): Promise<void>;
  /**
   * A budget of `limit` slots per window, checked and taken in one atomic
   * step: counting the slots still in flight too, so a burst of concurrent
   * claims never gets more than `limit` between them. The window (`windowMs`)
   * starts with the first claim.
   */
  claim(key: string, limit: number, windowMs: number): Promise<Claim>;
  /**
   * End a claimed slot. The slot that spends the last one restarts the window,
   * so the budget stays exhausted `windowMs` from that moment; returns whether
   * it is exhausted now.
   */
  settle(key: string, outcome: SlotOutcome, limit: number, windowMs: number): Promise<boolean>;
  /**
   * Take a lock for `ttlMs`; false when someone else holds it. `owner`, a
   * value unique to the holder, lets only that holder renew or release it
   * (a holder that lost its lock to expiry must not end its successor's).
   */
  acquire(key: string, ttlMs: number, owner?: string): Promise<boolean>;
  /**
   * Keep a lock `owner` still holds for `ttlMs` from now; false, and nothing
   * changed, when it expired or another holder has it. A short lock renewed
   * while its holder works lapses soon after the holder dies.
   */
  renew(key: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Give a lock back; with `owner`, only while that holder still has it. */
  release(key: string, owner?: string): Promise<void>;
  /** A short-lived cached value (`cache:` keys); null when absent or expired. */
  getCached(key: string): Promise<string | null>;
  /** Cache `value` for `ttlMs`, replacing what was there. */
  setCached(key: string, value: string, ttlMs: number): Promise<void>;
  /** Forget a cached value now (an erased contact's data must not outlive its rows). */
  dropCached(key: string): Promise<void>;
  /**
   * Take one of `limit` slots held open for a while (sockets per address):
   * false when all are taken. The count lives `ttlMs` after its last take or
   * `keepSlots`, so the slots of a crashed instance free themselves.
   */
  takeSlot(key: string, limit: number, ttlMs: number): Promise<boolean>;
  /** Give a taken slot back. */
  giveSlot(key: string): Promise<void>;
  /** Keep these slot counts alive another `ttlMs` (their holders are still open). */
  keepSlots(keys: string[], ttlMs: number): Promise<void>;
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, onMessage: (message: string) => void): Promise<Unsubscribe>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
