/**
 * db/pipelined_transaction.ts against the real database of this run (the
 * embedded PGlite, or PostgreSQL with DATABASE_URL): BEGIN and COMMIT travel
 * with the first and last statements, yet every statement runs inside the
 * transaction, a failure anywhere leaves nothing written, and the connection
 * goes back to the pool either way.
 */
import { assert_, assertEquals } from "../helpers/assert.ts";
import { openDatabase } from "../../db/client.ts";
import { pipelinedTransaction } from "../../db/pipelined_transaction.ts";
import { createStorage } from "./server_with_deps.ts";

Deno.test("a pipelined transaction", async (t) => {
  const storage = await createStorage();
  const db = await openDatabase({ databaseUrl: storage.databaseUrl, dataDir: storage.dataDir });
  const sql = db.sql;
  await sql`CREATE TABLE pipelined (id int PRIMARY KEY, note text NOT NULL)`;
  const notes = async () =>
    (await sql<{ id: number }[]>`SELECT id FROM pipelined ORDER BY id`).map((r) => r.id);

  try {
    await t.step("runs the first and the last statement inside the transaction", async () => {
      // A setting local to the transaction is seen by the last statement only
      // if BEGIN went before the first and COMMIT after the last.
      const [row] = await pipelinedTransaction(sql, async (tx, commitWith) => {
        await tx`SELECT set_config('parley.probe', 'inside', true)`;
        await tx`INSERT INTO pipelined VALUES (1, 'first')`;
        return await commitWith(
          tx<{ probe: string | null }[]>`SELECT current_setting('parley.probe', true) AS probe`,
        );
      });
      assertEquals(row!.probe, "inside");
      assertEquals(await notes(), [1]);
      // The transaction is over: the setting is gone.
      const [after] = await sql<{ probe: string | null }[]>`
        SELECT current_setting('parley.probe', true) AS probe`;
      assert_.notStrictEqual(after!.probe, "inside");
    });

    await t.step("a failing last statement leaves nothing of the transaction", async () => {
      await assert_.rejects(
        () =>
          pipelinedTransaction(sql, async (tx, commitWith) => {
            await tx`INSERT INTO pipelined VALUES (2, 'kept only if all goes well')`;
            return await commitWith(tx`INSERT INTO pipelined VALUES (1, 'a duplicate key')`);
          }),
        { code: "23505" }, // unique_violation, the server's own error
      );
      assertEquals(await notes(), [1]);
    });

    await t.step("a throw rolls back; returning without commitWith commits", async () => {
      await assert_.rejects(
        () =>
          pipelinedTransaction(sql, async (tx) => {
            await tx`INSERT INTO pipelined VALUES (3, 'rolled back')`;
            throw new Error("changed my mind");
          }),
        { message: "changed my mind" },
      );
      await pipelinedTransaction(sql, async (tx) => {
        await tx`INSERT INTO pipelined VALUES (4, 'committed on return')`;
      });
      assertEquals(await notes(), [1, 4]);
    });

    await t.step("the connection is back in the pool after every outcome", async () => {
      // The embedded database has one connection: a leaked one would hang here.
      const runs = Array.from(
        { length: 6 },
        (_, i) =>
          pipelinedTransaction(sql, async (tx, commitWith) => {
            if (i % 3 === 1) throw new Error("no");
            const id = 10 + i;
            return await commitWith(
              i % 3 === 2
                ? tx`INSERT INTO pipelined VALUES (${id}, NULL)` // NOT NULL: fails
                : tx`INSERT INTO pipelined VALUES (${id}, 'ok') RETURNING id`,
            );
          }).catch(() => null),
      );
      await Promise.all(runs);
      assertEquals(await notes(), [1, 4, 10, 13]);
    });
  } finally {
    await db.close();
    await storage.drop();
  }
});
