/** In-process Kv for a single instance without Redis. */
import type { Claim, Counter, Kv, SlotOutcome, Unsubscribe } from "./kv.ts";
import { detached, tracingOn } from "../domain/observability/tracing.ts";

interface Entry {
  count: number;
  expiresAt: number;
}

interface Budget {
  spent: number;
  pending: number;
  expiresAt: number;
}

export function createMemoryKv(now: () => number = Date.now): Kv {
  const counters = new Map<string, Entry>();
  const locks = new Map<string, { owner: string; until: number }>();
  const budgets = new Map<string, Budget>();
  const liveBudget = (key: string): Budget | undefined => {
    const b = budgets.get(key);
    if (b && b.expiresAt <= now()) {
      budgets.delete(key);
      return undefined;
    }
    return b;
  };
  const cached = new Map<string, { value: string; expiresAt: number }>();
  const slots = new Map<string, Entry>();
  const channels = new Map<string, Set<(m: string) => void>>();

  const live = (key: string): Entry | undefined => {
    const e = counters.get(key);
    if (e && e.expiresAt <= now()) {
      counters.delete(key);
      return undefined;
    }
    return e;
  };
  // Expired windows are dropped lazily, plus a periodic sweep so the map stays small.
  const sweep = setInterval(() => {
    const t = now();
    for (const [k, e] of counters) if (e.expiresAt <= t) counters.delete(k);
    for (const [k, l] of locks) if (l.until <= t) locks.delete(k);
    for (const [k, b] of budgets) if (b.expiresAt <= t) budgets.delete(k);
    for (const [k, c] of cached) if (c.expiresAt <= t) cached.delete(k);
    for (const [k, e] of slots) if (e.expiresAt <= t) slots.delete(k);
  }, 60_000);
  Deno.unrefTimer(sweep);

  return {
    hit(key, windowMs): Promise<Counter> {
      const t = now();
      let e = live(key);
      if (!e) {
        e = { count: 0, expiresAt: t + windowMs };
        counters.set(key, e);
      }
      e.count++;
      return Promise.resolve({ count: e.count, resetMs: e.expiresAt - t });
    },
    peek(key): Promise<Counter> {
      const e = live(key);
      return Promise.resolve(
        e ? { count: e.count, resetMs: e.expiresAt - now() } : {
          count: 0,
          resetMs: 0,
        },
      );
    },
    del(key) {
      counters.delete(key);
      return Promise.resolve();
    },
    // One synchronous step each: nothing else runs between the check and the count.
    claim(key, limit, windowMs): Promise<Claim> {
      const t = now();
      let b = liveBudget(key);
      if (b && b.spent + b.pending >= limit) {
        return Promise.resolve({ granted: false, resetMs: b.expiresAt - t });
      }
      if (!b) budgets.set(key, b = { spent: 0, pending: 0, expiresAt: t + windowMs });
      b.pending++;
      return Promise.resolve({ granted: true, resetMs: b.expiresAt - t });
    },
    settle(key, outcome: SlotOutcome, limit, windowMs): Promise<boolean> {
      const t = now();
      let b = liveBudget(key);
      // The window ended while the slot was out: a spent slot opens a new one.
      if (!b) budgets.set(key, b = { spent: 0, pending: 1, expiresAt: t + windowMs });
      b.pending = Math.max(0, b.pending - 1);
      if (outcome === "cleared") b.spent = 0;
      if (outcome === "spent" && ++b.spent >= limit) {
        b.expiresAt = t + windowMs;
        return Promise.resolve(true);
      }
      if (b.spent === 0 && b.pending === 0) budgets.delete(key);
      return Promise.resolve(false);
    },
    acquire(key, ttlMs, owner = "") {
      const t = now();
      const held = locks.get(key);
      if (held !== undefined && held.until > t) return Promise.resolve(false);
      locks.set(key, { owner, until: t + ttlMs });
      return Promise.resolve(true);
    },
    renew(key, owner, ttlMs) {
      const t = now();
      const held = locks.get(key);
      if (held === undefined || held.until <= t || held.owner !== owner) {
        return Promise.resolve(false);
      }
      held.until = t + ttlMs;
      return Promise.resolve(true);
    },
    release(key, owner) {
      if (owner === undefined || locks.get(key)?.owner === owner) locks.delete(key);
      return Promise.resolve();
    },
    getCached(key) {
      const c = cached.get(key);
      if (!c || c.expiresAt <= now()) return Promise.resolve(null);
      return Promise.resolve(c.value);
    },
    setCached(key, value, ttlMs) {
      cached.set(key, { value, expiresAt: now() + ttlMs });
      return Promise.resolve();
    },
    dropCached(key) {
      cached.delete(key);
      return Promise.resolve();
    },
    takeSlot(key, limit, ttlMs) {
      const t = now();
      const e = slots.get(key);
      const count = e && e.expiresAt > t ? e.count : 0;
      if (count >= limit) return Promise.resolve(false);
      slots.set(key, { count: count + 1, expiresAt: t + ttlMs });
      return Promise.resolve(true);
    },
    giveSlot(key) {
      const e = slots.get(key);
      if (e && --e.count <= 0) slots.delete(key);
      return Promise.resolve();
    },
    keepSlots(keys, ttlMs) {
      const until = now() + ttlMs;
      for (const k of keys) {
        const e = slots.get(k);
        if (e) e.expiresAt = until;
      }
      return Promise.resolve();
    },
    publish(channel, message) {
      // Subscribers run outside the publisher's trace, as they do through Redis.
      for (const fn of channels.get(channel) ?? []) {
        queueMicrotask(tracingOn ? () => detached(() => fn(message)) : () => fn(message));
      }
      return Promise.resolve();
    },
    subscribe(channel, onMessage): Promise<Unsubscribe> {
      let set = channels.get(channel);
      if (!set) channels.set(channel, set = new Set());
      set.add(onMessage);
      return Promise.resolve(() => {
        set!.delete(onMessage);
        if (set!.size === 0) channels.delete(channel);
        return Promise.resolve();
      });
    },
    ping: () => Promise.resolve(true),
    close() {
      clearInterval(sweep);
      return Promise.resolve();
    },
  };
}
