/**
 * db/database_watch.ts against PostgreSQL (DATABASE_URL; the embedded
 * database runs in process and is never probed): a busy event loop is not a
 * database outage. Under 5,000 concurrent widget streams the probe's timer
 * fired before its answer was read, and every request got a 503. The probe
 * is never `silent` (what makes the outage guard refuse) on a busy thread;
 * `/readyz` (`reachable()`) is true only for an answer actually read.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { createTestDatabase } from "../helpers/test_server.ts";
import { openDatabase } from "../../db/client.ts";
import { PROBE_TIMEOUT_MS } from "../../db/database_watch.ts";

const url = Deno.env.get("DATABASE_URL");

/** Keeps the thread busy, as thousands of requests do. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* the event loop waits */ }
}

Deno.test({
  name: "database watch: a busy event loop is not an outage",
  ignore: !url,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const storage = (await createTestDatabase())!;
    const db = await openDatabase({ databaseUrl: storage.url, dataDir: "" });
    try {
      // The first probe opens its own connection, amid bursts of work as
      // thousands of arriving requests make them: answered, or (a thread
      // never free to read the answer for PROBE_GIVE_UP_MS) inconclusive.
      const bursts = setInterval(() => busy(PROBE_TIMEOUT_MS + 200), 5);
      try {
        assertOk(await db.watch.probe() !== "silent", "a busy thread taken for a silent database");
      } finally {
        clearInterval(bursts);
      }
      assertEquals(await db.watch.reachable(), true); // the thread is free again
      const probe = db.watch.reachable();
      // The database answers at once, but the thread is busy past the timeout.
      busy(PROBE_TIMEOUT_MS + 300);
      assertEquals(await probe, true);
    } finally {
      await db.close();
      await storage.drop();
    }
  },
});
