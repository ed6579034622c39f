/**
 * One contract for both Kv implementations: the in-process one always, and
 * Redis when REDIS_URL is set (as in CI's second run). The rate-limit guard
 * and the client-IP rule are proven on top of it.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import type { Kv } from "../../kv/kv.ts";
import { createMemoryKv } from "../../kv/memory_kv.ts";
import { createRedisKv } from "../../kv/redis_kv.ts";
import { enforceRateLimit } from "../../routers/guards/rate_limit.ts";
import { clientIp } from "../../routers/doors/client_ip.ts";
import { QuotaExceeded } from "../../domain/errors.ts";

const redisUrl = Deno.env.get("REDIS_URL");

const implementations: { name: string; open(): Promise<Kv>; ignore: boolean }[] = [
  { name: "in-process", open: () => Promise.resolve(createMemoryKv()), ignore: false },
  {
    name: "redis",
    open: () => createRedisKv(redisUrl ?? "redis://127.0.0.1:6379", `t${crypto.randomUUID()}:`),
    ignore: !redisUrl,
  },
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const impl of implementations) {
  Deno.test({
    name: `Kv contract (${impl.name})`,
    ignore: impl.ignore,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async (t) => {
      const kv = await impl.open();
      try {
        await t.step("hit counts within a window and reports the time left", async () => {
          const a = await kv.hit("c1", 1000);
          const b = await kv.hit("c1", 1000);
          assertEquals([a.count, b.count], [1, 2]);
          assertOk(b.resetMs > 0 && b.resetMs <= 1000, `resetMs ${b.resetMs}`);
          assertEquals((await kv.peek("c1")).count, 2);
          assertEquals((await kv.peek("never")).count, 0);
        });

        await t.step("a window expires and the count starts again", async () => {
          await kv.hit("c2", 150);
          await kv.hit("c2", 150);
          await sleep(250);
          assertEquals((await kv.hit("c2", 150)).count, 1);
        });

        await t.step("del resets a counter", async () => {
          await kv.hit("c3", 10_000);
          await kv.del("c3");
          assertEquals((await kv.peek("c3")).count, 0);
        });

        await t.step(
          "claims are checked and taken atomically, in flight ones included",
          async () => {
            const claims = await Promise.all(
              Array.from({ length: 20 }, () => kv.claim("b1", 5, 10_000)),
            );
            assertEquals(claims.filter((c) => c.granted).length, 5);
            const refused = claims.find((c) => !c.granted)!;
            assertOk(
              refused.resetMs > 0 && refused.resetMs <= 10_000,
              `resetMs ${refused.resetMs}`,
            );
            // Refunding two in-flight slots lets two more through, no more.
            await kv.settle("b1", "refunded", 5, 10_000);
            await kv.settle("b1", "refunded", 5, 10_000);
            const more = await Promise.all([1, 2, 3].map(() => kv.claim("b1", 5, 10_000)));
            assertEquals(more.filter((c) => c.granted).length, 2);
          },
        );

        await t.step(
          "spending the last slot exhausts the budget; clearing forgets spent ones",
          async () => {
            for (let i = 0; i < 2; i++) {
              assertOk((await kv.claim("b2", 3, 10_000)).granted);
              assertEquals(await kv.settle("b2", "spent", 3, 10_000), false);
            }
            assertOk((await kv.claim("b2", 3, 10_000)).granted);
            assertOk((await kv.claim("b2", 3, 10_000)).granted === false);
            assertOk((await kv.claim("b3", 3, 10_000)).granted);
            await kv.settle("b3", "cleared", 3, 10_000);
            assertOk((await kv.claim("b3", 3, 10_000)).granted);
            await kv.settle("b3", "spent", 3, 10_000);
            assertOk((await kv.claim("b3", 3, 10_000)).granted);
            assertOk((await kv.claim("b3", 3, 10_000)).granted);
            assertEquals(await kv.settle("b3", "spent", 3, 10_000), false);
            assertEquals(await kv.settle("b3", "spent", 3, 200), true);
            assertOk((await kv.claim("b3", 3, 10_000)).granted === false);
            await sleep(300);
            assertOk((await kv.claim("b3", 3, 10_000)).granted, "the exhausted window ends");
          },
        );

        await t.step("a cached value is read back until it expires", async () => {
          assertEquals(await kv.getCached("k1"), null);
          await kv.setCached("k1", '{"a":1}', 150);
          assertEquals(await kv.getCached("k1"), '{"a":1}');
          await kv.setCached("k1", "second", 150);
          assertEquals(await kv.getCached("k1"), "second");
          await sleep(250);
          assertEquals(await kv.getCached("k1"), null);
        });

        await t.step("a lock is exclusive until released or expired", async () => {
          assertEquals(await kv.acquire("l1", 10_000), true);
          assertEquals(await kv.acquire("l1", 10_000), false);
          await kv.release("l1");
          assertEquals(await kv.acquire("l1", 150), true);
          await sleep(250);
          assertEquals(await kv.acquire("l1", 1000), true);
        });

        await t.step("only a lock's owner renews or releases it", async () => {
          assertEquals(await kv.acquire("l2", 300, "me"), true);
          assertEquals(await kv.renew("l2", "someone else", 10_000), false);
          await kv.release("l2", "someone else");
          assertEquals(await kv.acquire("l2", 300, "them"), false, "still mine");
          // Renewed past its first expiry, it is still held.
          await sleep(150);
          assertEquals(await kv.renew("l2", "me", 300), true);
          await sleep(250);
          assertEquals(await kv.acquire("l2", 300, "them"), false, "renewed");
          await kv.release("l2", "me");
          assertEquals(await kv.acquire("l2", 150, "them"), true);
          // Lapsed: the old owner can neither renew it nor end its successor's.
          await sleep(250);
          assertEquals(await kv.renew("l2", "them", 10_000), false);
          assertEquals(await kv.acquire("l2", 10_000, "next"), true);
          await kv.release("l2", "them");
          assertEquals(await kv.acquire("l2", 10_000, "other"), false, "the successor's");
        });

        await t.step("pub/sub delivers to subscribers until they unsubscribe", async () => {
          const got: string[] = [];
          const unsubscribe = await kv.subscribe("ch", (m) => got.push(m));
          await kv.publish("ch", "one");
          await kv.publish("other", "not for us");
          for (let i = 0; i < 40 && got.length < 1; i++) await sleep(25);
          await unsubscribe();
          await kv.publish("ch", "two");
          await sleep(100);
          assertEquals(got, ["one"]);
        });

        await t.step("ping answers", async () => {
          assertEquals(await kv.ping(), true);
        });

        await t.step("rate-limit guard: headers, then QuotaExceeded with Retry-After", async () => {
          const spec = { name: "t", limit: 3, windowSeconds: 60, by: "ip" as const };
          for (let i = 1; i <= 3; i++) {
            const headers = new Headers();
            await enforceRateLimit(kv, spec, "203.0.113.1", headers);
            assertEquals(headers.get("x-ratelimit-limit"), "3");
            assertEquals(headers.get("x-ratelimit-remaining"), String(3 - i));
          }
          const headers = new Headers();
          let refused: unknown = null;
          try {
            await enforceRateLimit(kv, spec, "203.0.113.1", headers);
          } catch (err) {
            refused = err;
          }
          assertOk(refused instanceof QuotaExceeded);
          const retry = Number(headers.get("retry-after"));
          assertOk(retry >= 59 && retry <= 60, `Retry-After ${retry}`);
          assertEquals((refused as QuotaExceeded).retryAfter, retry);
          // Another subject has its own counter.
          await enforceRateLimit(kv, spec, "203.0.113.2", new Headers());
        });
      } finally {
        await kv.close();
      }
    },
  });
}

Deno.test("the client IP is the connection's unless a trusted proxy forwards it", () => {
  const req = (xff?: string) =>
    new Request("http://x/", { headers: xff ? { "x-forwarded-for": xff } : {} });
  // No TRUSTED_PROXIES: the header is ignored.
  assertEquals(clientIp(req("198.51.100.7"), "10.0.0.2", []), "10.0.0.2");
  // Trusted peer: the right-most untrusted hop.
  assertEquals(clientIp(req("198.51.100.7, 10.0.0.3"), "10.0.0.2", ["10.0.0.*"]), "198.51.100.7");
  assertEquals(clientIp(req("198.51.100.7"), "10.0.0.2", ["10.0.0.2"]), "198.51.100.7");
  // An untrusted peer cannot choose its address by sending the header.
  assertEquals(clientIp(req("198.51.100.7"), "192.0.2.50", ["10.0.0.*"]), "192.0.2.50");
  // A trusted peer without the header is the client itself.
  assertEquals(clientIp(req(), "10.0.0.2", ["10.0.0.*"]), "10.0.0.2");
});
