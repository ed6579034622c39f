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

export interface Kv {
  /** Increment `key`, starting a window of `windowMs` on the first hit. */
  hit(key: string, windowMs: number): Promise<Counter>;
  /** Current count without incrementing (0 when absent). */
  peek(key: string): Promise<Counter>;
  del(key: string): Promise<void>;
  /** Take a lock for `ttlMs`; false when someone else holds it. */
  acquire(key: string, ttlMs: number): Promise<boolean>;
  release(key: string): Promise<void>;
  /** A short-lived cached value (`cache:` keys); null when absent or expired. */
  getCached(key: string): Promise<string | null>;
  /** Cache `value` for `ttlMs`, replacing what was there. */
  setCached(key: string, value: string, ttlMs: number): Promise<void>;
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, onMessage: (message: string) => void): Promise<Unsubscribe>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
