/** Redis-backed Kv: shared counters, locks and pub/sub across instances. */
import { createClient, ErrorReply } from "redis";
import { recordKvError } from "../domain/observability/metrics.ts";
import { type Claim, type Counter, type Kv, KvUnavailable, type Unsubscribe } from "./kv.ts";

/**
 * How long one command may take before its caller hears KvUnavailable. The
 * client's own command timeout stops counting once a command is written, so
 * on a link that accepts bytes but never answers (a partition) a request
 * would wait forever; this bound covers the whole command.
 */
export const KV_COMMAND_TIMEOUT_MS = 2000;

/** Reconnect fast and steadily: 50 ms, doubling, at most 1 s apart. */
const reconnectDelay = (retries: number) => Math.min(50 * 2 ** retries, 1000);

// INCR and PEXPIRE in one step, so a crash between them cannot leave a counter
// without expiry.
const HIT_SCRIPT = `
local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {c, ttl}`;

// A budget is a hash {s: spent, p: pending}; checking and taking a slot is
// one script, so concurrent claims (on any instance) cannot all pass the check.
const CLAIM_SCRIPT = `
local s = tonumber(redis.call('HGET', KEYS[1], 's') or '0')
local p = tonumber(redis.call('HGET', KEYS[1], 'p') or '0')
if s + p >= tonumber(ARGV[1]) then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]); ttl = tonumber(ARGV[2]) end
  return {0, ttl}
end
redis.call('HINCRBY', KEYS[1], 'p', 1)
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]); ttl = tonumber(ARGV[2]) end
return {1, ttl}`;

// ARGV: outcome, limit, windowMs. Returns 1 when the budget is now exhausted.
const SETTLE_SCRIPT = `
local fresh = redis.call('EXISTS', KEYS[1]) == 0
local p = redis.call('HINCRBY', KEYS[1], 'p', -1)
if p < 0 then redis.call('HSET', KEYS[1], 'p', 0); p = 0 end
local s = tonumber(redis.call('HGET', KEYS[1], 's') or '0')
if ARGV[1] == 'cleared' then redis.call('HSET', KEYS[1], 's', 0); s = 0 end
if ARGV[1] == 'spent' then
  s = redis.call('HINCRBY', KEYS[1], 's', 1)
  if s >= tonumber(ARGV[2]) then
    redis.call('PEXPIRE', KEYS[1], ARGV[3])
    return 1
  end
end
if s == 0 and p == 0 then
  redis.call('DEL', KEYS[1])
elseif fresh or redis.call('PTTL', KEYS[1]) < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return 0`;

// A slot count: checked and taken in one step on any instance; every take renews its life.
const TAKE_SLOT_SCRIPT = `
local c = tonumber(redis.call('GET', KEYS[1]) or '0')
if c >= tonumber(ARGV[1]) then return 0 end
redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

const GIVE_SLOT_SCRIPT = `
if redis.call('DECR', KEYS[1]) <= 0 then redis.call('DEL', KEYS[1]) end
return 0`;

// A lock's value is its owner: only the owner extends or deletes it, in one
// step, so a holder whose lock lapsed cannot touch its successor's.
const RENEW_LOCK_SCRIPT = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

const RELEASE_LOCK_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`;

export async function createRedisKv(url: string, prefix = "parley:"): Promise<Kv> {
  const client = createClient({
    url,
    // While reconnecting, a command fails at once instead of queueing until
    // Redis is back: the request gets its answer (503, or carries on without
    // Redis) in bounded time.
    disableOfflineQueue: true,
    socket: { connectTimeout: 2000, reconnectStrategy: reconnectDelay },
  });
  // Reconnects on its own; readyz reports the outage, /metrics counts it.
  client.on("error", () => recordKvError("connection"));
  await client.connect();
  let subscriber: typeof client | null = null;
  const subscriberClient = async () => {
    if (!subscriber) {
      subscriber = client.duplicate();
      subscriber.on("error", () => {});
      await subscriber.connect();
    }
    return subscriber;
  };

  const kv: Kv = {
    async hit(key, windowMs): Promise<Counter> {
      const [count, ttl] = await client.eval(HIT_SCRIPT, {
        keys: [prefix + key],
        arguments: [String(windowMs)],
      }) as [number, number];
      return { count, resetMs: ttl };
    },
    async peek(key): Promise<Counter> {
      const [value, ttl] = await Promise.all([
        client.get(prefix + key),
        client.pTTL(prefix + key),
      ]);
      return { count: value ? Number(value) : 0, resetMs: Math.max(0, Number(ttl)) };
    },
    async del(key) {
      await client.del(prefix + key);
    },
    async claim(key, limit, windowMs): Promise<Claim> {
      const [granted, ttl] = await client.eval(CLAIM_SCRIPT, {
        keys: [prefix + key],
        arguments: [String(limit), String(windowMs)],
      }) as [number, number];
      return { granted: granted === 1, resetMs: ttl };
    },
    async settle(key, outcome, limit, windowMs) {
      const exhausted = await client.eval(SETTLE_SCRIPT, {
        keys: [prefix + key],
        arguments: [outcome, String(limit), String(windowMs)],
      });
      return exhausted === 1;
    },
    async acquire(key, ttlMs, owner = "1") {
      const ok = await client.set(prefix + "lock:" + key, owner, { PX: ttlMs, NX: true } as never);
      return ok === "OK";
    },
    async renew(key, owner, ttlMs) {
      const renewed = await client.eval(RENEW_LOCK_SCRIPT, {
        keys: [prefix + "lock:" + key],
        arguments: [owner, String(ttlMs)],
      });
      return renewed === 1;
    },
    async release(key, owner) {
      if (owner === undefined) {
        await client.del(prefix + "lock:" + key);
        return;
      }
      await client.eval(RELEASE_LOCK_SCRIPT, {
        keys: [prefix + "lock:" + key],
        arguments: [owner],
      });
    },
    async getCached(key) {
      return (await client.get(prefix + "cache:" + key)) ?? null;
    },
    async setCached(key, value, ttlMs) {
      await client.set(prefix + "cache:" + key, value, { PX: ttlMs } as never);
    },
    async dropCached(key) {
      await client.del(prefix + "cache:" + key);
    },
    async takeSlot(key, limit, ttlMs) {
      const taken = await client.eval(TAKE_SLOT_SCRIPT, {
        keys: [prefix + "slots:" + key],
        arguments: [String(limit), String(ttlMs)],
      });
      return taken === 1;
    },
    async giveSlot(key) {
      await client.eval(GIVE_SLOT_SCRIPT, { keys: [prefix + "slots:" + key], arguments: [] });
    },
    async keepSlots(keys, ttlMs) {
      if (keys.length === 0) return;
      const batch = client.multi();
      for (const k of keys) batch.pExpire(prefix + "slots:" + k, ttlMs);
      await batch.exec();
    },
    async publish(channel, message) {
      await client.publish(prefix + channel, message);
    },
    async subscribe(channel, onMessage): Promise<Unsubscribe> {
      const sub = await subscriberClient();
      const listener = (message: string) => onMessage(message);
      await sub.subscribe(prefix + channel, listener);
      return async () => {
        await sub.unsubscribe(prefix + channel, listener);
      };
    },
    async ping() {
      try {
        return (await client.ping()) === "PONG";
      } catch {
        return false;
      }
    },
    async close() {
      if (subscriber) await (subscriber as typeof client).quit().catch(() => {});
      await client.quit().catch(() => {});
    },
  };
  // After a command fails to reach Redis, the others fail at once for a
  // moment instead of each waiting out its own bound (a request may issue
  // several); the first command after the pause finds out whether it is back.
  let unreachableUntil = 0;
  for (const name of BOUNDED) {
    const command = kv[name] as (...args: unknown[]) => Promise<unknown>;
    (kv as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      if (Date.now() < unreachableUntil) {
        recordKvError(name);
        throw new KvUnavailable("unreachable a moment ago");
      }
      try {
        return await bounded(command(...args));
      } catch (err) {
        if (err instanceof KvUnavailable) unreachableUntil = Date.now() + KV_COMMAND_TIMEOUT_MS;
        recordKvError(name);
        throw err;
      }
    };
  }
  return kv;
}

/** Every command a request may wait on (ping has its own bound in /readyz). */
const BOUNDED = [
  "hit",
  "peek",
  "del",
  "claim",
  "settle",
  "acquire",
  "renew",
  "release",
  "getCached",
  "setCached",
  "takeSlot",
  "giveSlot",
  "keepSlots",
  "publish",
] as const satisfies (keyof Kv)[];

/** `work`, or KvUnavailable once it fails to reach Redis or outlasts the bound. */
function bounded<T>(work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new KvUnavailable(`no answer within ${KV_COMMAND_TIMEOUT_MS} ms`)),
      KV_COMMAND_TIMEOUT_MS,
    );
  });
  const answered = work.catch((err) => {
    // Redis answered with an error (a script bug, a wrong type): not an outage.
    throw err instanceof ErrorReply ? err : new KvUnavailable(err);
  });
  return Promise.race([answered, deadline]).finally(() => clearTimeout(timer));
}
