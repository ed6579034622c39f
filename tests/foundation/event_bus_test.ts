/**
 * The event bus as two instances see it, on the in-process Kv always and on
 * Redis when REDIS_URL is set: the emitting instance's subscribers get an
 * event at once and once (not again when the Kv echoes it back), every other
 * instance's subscribers get it once, and each instance's events arrive in
 * the order that instance emitted them. Events of two instances have no order
 * between them: B's own subscriber has B's event at once, while A's earlier
 * one may still be on its way from the Kv (CI saw [1, 3, 2] at B on Redis).
 */
import { assertEquals } from "../helpers/assert.ts";
import { createEventBus, type DomainEvent } from "../../app/event_bus.ts";
import type { Kv } from "../../kv/kv.ts";
import { createMemoryKv } from "../../kv/memory_kv.ts";
import { createRedisKv } from "../../kv/redis_kv.ts";

const redisUrl = Deno.env.get("REDIS_URL");

/** Two instances' Kvs: one shared in-process Kv, or two Redis clients on one prefix. */
const setups: { name: string; open(): Promise<[Kv, Kv]>; ignore: boolean }[] = [
  {
    name: "in-process",
    open: () => {
      const kv = createMemoryKv();
      return Promise.resolve([kv, kv]);
    },
    ignore: false,
  },
  {
    name: "redis",
    open: async () => {
      const prefix = `t${crypto.randomUUID()}:`;
      const url = redisUrl ?? "redis://127.0.0.1:6379";
      return [await createRedisKv(url, prefix), await createRedisKv(url, prefix)];
    },
    ignore: !redisUrl,
  },
];

const event = (n: number): DomainEvent => ({ type: "test.event", workspaceId: 1, n });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await sleep(5);
}

for (const setup of setups) {
  Deno.test({
    name: `event bus across two instances (${setup.name})`,
    ignore: setup.ignore,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      const [kvA, kvB] = await setup.open();
      const a = createEventBus(kvA);
      const b = createEventBus(kvB);
      const seenByA: unknown[] = [];
      const seenByB: unknown[] = [];
      const offA = await a.on((e) => seenByA.push(e.n));
      const offB = await b.on((e) => seenByB.push(e.n));
      try {
        const emitted = a.emit(event(1));
        await Promise.resolve();
        // The emitting instance's own subscriber has it at once, before the
        // Kv has carried it anywhere (with Redis: before any round trip).
        assertEquals(seenByA, [1]);
        await emitted;
        await a.emit(event(2));
        await b.emit(event(3));
        await until(() => seenByA.length >= 3 && seenByB.length >= 3);
        await sleep(100); // room for an echo, were one to come back
        for (const seen of [seenByA, seenByB]) {
          assertEquals([...seen].sort(), [1, 2, 3], "each event once");
          assertEquals(seen.filter((n) => n !== 3), [1, 2], "A's events in A's order");
        }
        assertEquals(seenByA.indexOf(2) < seenByA.indexOf(3), true, "A's own event at once");
        // A subscriber that throws does not stop the next one.
        const offThrowing = await a.on(() => {
          throw new Error("subscriber bug");
        });
        await a.emit(event(4));
        await until(() => seenByB.length >= 4);
        assertEquals([seenByA.at(-1), seenByB.at(-1)], [4, 4]);
        await offThrowing();
      } finally {
        await offA();
        await offB();
        await kvA.close();
        if (kvB !== kvA) await kvB.close();
      }
    },
  });
}
