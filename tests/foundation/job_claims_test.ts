/**
 * db/jobs.ts `claimJobs` against the real database of this run (embedded
 * PGlite, or PostgreSQL with DATABASE_URL): one statement takes up to the
 * runner's free slots, oldest first, only of its kinds and only due jobs; a
 * job held by a live lease is never taken twice, one whose lease ran out is.
 */
import { assertEquals } from "../helpers/assert.ts";
import { openDatabase } from "../../db/client.ts";
import { migrate } from "../../db/migrate.ts";
import { claimJobs, insertJob } from "../../db/jobs.ts";
import { createStorage } from "./server_with_deps.ts";

Deno.test("job claims", async (t) => {
  const storage = await createStorage();
  const db = await openDatabase({ databaseUrl: storage.databaseUrl, dataDir: storage.dataDir });
  const sql = db.sql;
  await migrate(sql);
  const queue = async (kind: string, n: number) => {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      ids.push(await insertJob(sql, { kind, payload: { i }, dedupeKey: `${kind}:${i}` }));
    }
    return ids;
  };
  try {
    const alerts = await queue("notify_agents", 5);
    const [indexing] = await queue("index_source", 1);

    await t.step("a batch up to the free slots, oldest first, of the runner's kinds", async () => {
      const first = await claimJobs(sql, "worker-a", ["notify_agents"], 60, 3);
      assertEquals(first.map((j) => j.id), alerts.slice(0, 3));
      assertEquals(first.map((j) => j.attempts), [1, 1, 1]);
      // Fewer due than asked: the batch is short, which tells the runner the queue is empty.
      const rest = await claimJobs(sql, "worker-b", ["notify_agents"], 60, 8);
      assertEquals(rest.map((j) => j.id), alerts.slice(3));
      assertEquals(await claimJobs(sql, "worker-c", ["notify_agents"], 60, 8), []);
    });

    await t.step("another kind's job is left to its runner", async () => {
      const taken = await claimJobs(sql, "worker-d", ["index_source", "catalogue_sync"], 60, 4);
      assertEquals(taken.map((j) => j.id), [indexing]);
    });

    await t.step("a job not due yet waits; a lapsed lease is taken again", async () => {
      const [later] = await queue("email_digest", 1);
      await sql`UPDATE jobs SET run_at = now() + interval '1 hour' WHERE id = ${later!}`;
      assertEquals(await claimJobs(sql, "worker-e", ["email_digest"], 60, 2), []);
      // worker-a died holding its jobs: their leases lapse.
      await sql`UPDATE jobs SET locked_until = now() - interval '1 second'
                 WHERE locked_by = 'worker-a'`;
      const retaken = await claimJobs(sql, "worker-f", ["notify_agents"], 60, 8);
      assertEquals(retaken.map((j) => j.id), alerts.slice(0, 3));
      assertEquals(retaken.map((j) => j.attempts), [2, 2, 2]);
    });

    await t.step("two runners claiming at once never share a job", async () => {
      const more = await queue("push_delivery", 12);
      const [a, b] = await Promise.all([
        claimJobs(sql, "worker-g", ["push_delivery"], 60, 8),
        claimJobs(sql, "worker-h", ["push_delivery"], 60, 8),
      ]);
      const ids = [...a!, ...b!].map((j) => j.id).sort((x, y) => x - y);
      assertEquals(ids, more);
    });
  } finally {
    await db.close();
    await storage.drop();
  }
});
