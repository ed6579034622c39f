/** Redis-backed Kv: shared counters, locks and pub/sub across instances. */
import { createClient } from "redis";
import type { Counter, Kv, Unsubscribe } from "./kv.ts";

// INCR and PEXPIRE in one step, so a crash between them cannot leave a counter
// without expiry.
const HIT_SCRIPT = `
local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {c, ttl}`;

export async function createRedisKv(url: string, prefix = "parley:"): Promise<Kv> {
  const client = createClient({ url });
  client.on("error", () => {/* reconnects on its own; readyz reports the outage */});
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

  return {
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
    async acquire(key, ttlMs) {
      const ok = await client.set(prefix + "lock:" + key, "1", { PX: ttlMs, NX: true } as never);
      return ok === "OK";
    },
    async release(key) {
      await client.del(prefix + "lock:" + key);
    },
    async getCached(key) {
      return (await client.get(prefix + "cache:" + key)) ?? null;
    },
    async setCached(key, value, ttlMs) {
      await client.set(prefix + "cache:" + key, value, { PX: ttlMs } as never);
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
}
