/**
 * A transaction two round trips shorter than `sql.begin`, for the hottest
 * write paths (an agent's reply). `sql.begin` waits for BEGIN's answer before
 * the first statement and for the last statement's answer before COMMIT; here
 * BEGIN leaves with the first statement and COMMIT with the last, on one
 * reserved connection (postgres.js pipelines what it sends on a connection and
 * the server answers in order).
 *
 * The order on the wire is the order in which queries are *executed*, not
 * created: `await tx\`…\`` sends its query a few microtasks late, so a COMMIT
 * sent meanwhile would overtake it. That is why `commitWith` takes the last
 * statement unsent (a postgres.js PendingQuery) and sends it first itself.
 */
import type postgres from "postgres";
import type { Sql, Tx } from "./client.ts";

/** Sends `last`, then COMMIT behind it; resolves with `last`'s rows once both are answered. */
export type CommitWith = <T extends readonly postgres.MaybeRow[]>(
  last: postgres.PendingQuery<T>,
) => Promise<T>;

/**
 * Runs `fn` in a transaction. `fn` ends it with `commitWith(lastStatement)`,
 * or returns without doing so (then COMMIT is sent on its own). A throw rolls
 * back; so does a failing statement sent with `commitWith` (the server then
 * answers the pipelined COMMIT with ROLLBACK). Nothing may be sent after
 * `commitWith`. Savepoints are not available.
 */
export async function pipelinedTransaction<T>(
  sql: Sql,
  fn: (tx: Tx, commitWith: CommitWith) => Promise<T>,
): Promise<T> {
  const conn = await sql.reserve();
  let ended = false;
  let broken = false;
  // Sent now, it travels with fn's first statement. A BEGIN that fails means a
  // connection that fails, so that statement fails with it.
  const begun = conn`BEGIN`.execute();
  begun.catch(() => {}); // its failure is the first statement's, reported there

  const commitWith: CommitWith = async (last) => {
    if (ended) throw new Error("The transaction has already ended.");
    ended = true;
    last.execute();
    const commit = conn`COMMIT`.execute();
    const [rows, committed] = await Promise.allSettled([last, commit]);
    if (rows.status === "rejected") throw rows.reason;
    if (committed.status === "rejected") throw committed.reason;
    return rows.value;
  };

  try {
    // The reserved connection is a transaction scope in all but savepoints.
    const result = await fn(conn as unknown as Tx, commitWith);
    if (!ended) {
      ended = true;
      await conn`COMMIT`;
    }
    return result;
  } catch (err) {
    broken = isConnectionError(err);
    if (!ended && !broken) {
      ended = true;
      await conn`ROLLBACK`.catch(() => broken = true);
    }
    throw err;
  } finally {
    // A connection that closed under us is back in the pool's closed set,
    // where it reconnects; releasing it would list it as open.
    if (!broken) conn.release();
  }
}

/** postgres.js's own connection failures, as opposed to errors the server reported. */
function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("CONNECTION_");
}
