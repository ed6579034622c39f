/**
 * A database stall (a network partition: connections accepted, no byte
 * answered) through the fault proxy, on a server whose thread is busy in
 * bursts, as a server at work is: `/readyz` polled every 100 ms never
 * answers 200 once the stall is detectable, that is from PROBE_TIMEOUT_MS
 * after it began, and requests started during the stall are answered 503
 * with Retry-After within the bound docs/errors.md gives (OUTAGE_CHECK_MS,
 * then the next sweep, then the probe). Work bursts of 60 ms every 250 ms
 * are no saturation: a probe's missing answer must still count.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { openDatabase } from "../helpers/outage_database.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFaultProxy } from "../helpers/fault_proxy.ts";
import { OUTAGE_ANSWER_BOUND_MS, PROBE_TIMEOUT_MS } from "../../db/database_watch.ts";

const STALL_MS = 7_000;
/** The server's thread is busy this long in every BURST_EVERY_MS. */
const BURST_MS = 60;
const BURST_EVERY_MS = 250;
/** Scheduling slack on a shared machine, beyond the bursts the test makes itself. */
const SLACK_MS = 500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* the thread does other work */ }
}

Deno.test("database stall: /readyz and requests", serverTestOptions, async (t) => {
  const database = await openDatabase();
  const proxy = startFaultProxy(database.host);
  const s = await startTestServer({
    seed: standardSeed(),
    databaseUrl: proxy.urlFor(database.url),
    env: { LOG_LEVEL: "silent", ...database.env },
  });
  const me = () => http(s.url, "GET", "/api/v1/me", { token: T.acme.owner.api });
  const bursts = setInterval(() => busy(BURST_MS), BURST_EVERY_MS);
  try {
    assertEquals((await me()).status, 200);
    assertEquals((await http(s.url, "GET", "/readyz")).status, 200);

    const cutAt = performance.now();
    proxy.cut("stall");
    // Healed on time whatever the requests do: one left waiting would otherwise wait for ever.
    const healed = sleep(STALL_MS).then(() => proxy.heal());
    const polls: { sentMs: number; status: number; tookMs: number }[] = [];
    // Every 100 ms, not waiting for the previous answer (each takes up to a probe's time).
    const poller = (async () => {
      const pending: Promise<void>[] = [];
      while (performance.now() - cutAt < STALL_MS - 200) {
        const sent = performance.now();
        pending.push(
          http(s.url, "GET", "/readyz").then((r) => {
            polls.push({
              sentMs: sent - cutAt,
              status: r.status,
              tookMs: performance.now() - sent,
            });
          }),
        );
        await sleep(100);
      }
      await Promise.all(pending);
    })();
    const requests = [0, 1_000, 2_500, 4_000].map(async (at) => {
      await sleep(at);
      const sent = performance.now();
      const r = await me();
      return {
        at,
        status: r.status,
        ms: performance.now() - sent,
        retryAfter: r.headers.get("retry-after"),
      };
    });
    const answered = await Promise.all(requests);
    await poller;
    await healed;

    await t.step("/readyz: never 200 once the stall is detectable", () => {
      const first503 = Math.min(...polls.filter((p) => p.status === 503).map((p) => p.sentMs));
      const slowest = Math.max(...polls.map((p) => p.tookMs));
      console.log(
        `${polls.length} polls; the first 503 for a poll sent ${first503.toFixed(0)} ms into ` +
          `the stall; slowest /readyz ${slowest.toFixed(0)} ms`,
      );
      // A poll answered after the heal may rightly be 200: the database answered its probe.
      const late = polls.filter((p) =>
        p.sentMs >= PROBE_TIMEOUT_MS && p.sentMs + p.tookMs < STALL_MS
      );
      assertOk(late.length >= 20, `only ${late.length} polls`);
      const ready = late.filter((p) => p.status !== 503);
      assertEquals(ready, [], "/readyz answered other than 503 during the stall");
    });

    await t.step("requests during the stall: 503 + Retry-After within the bound", () => {
      console.log(answered.map((a) => `${a.at}: ${a.status} in ${a.ms.toFixed(0)} ms`).join(", "));
      for (const a of answered) {
        assertEquals(a.status, 503, `request at ${a.at} ms`);
        assertOk(Number(a.retryAfter) >= 1, `request at ${a.at} ms: no Retry-After`);
        assertOk(
          a.ms <= OUTAGE_ANSWER_BOUND_MS + SLACK_MS,
          `request at ${a.at} ms answered in ${a.ms.toFixed(0)} ms`,
        );
      }
    });

    await t.step("recovery: /readyz and requests succeed once the database answers", async () => {
      let ready = 0;
      for (let i = 0; i < 40 && ready !== 200; i++) {
        await sleep(250);
        ready = (await http(s.url, "GET", "/readyz")).status;
      }
      assertEquals(ready, 200);
      assertEquals((await me()).status, 200);
    });
  } finally {
    clearInterval(bursts);
    proxy.heal();
    await s.stop();
    await proxy.close();
    await database.close();
  }
});
