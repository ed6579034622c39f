/**
 * One round of table maintenance (db/table_maintenance.ts): VACUUM and
 * ANALYZE the tables that changed enough, as PostgreSQL's autovacuum would,
 * where it does not run. Without it the statistics stay those of the empty
 * tables the migrations made, and the plans that prepared statements keep
 * stay the plans for empty tables: the agent's reply statement then slowed
 * with every conversation stored, 1.6 → 12.8 ms after six minutes of soak
 * traffic, and back to 1.8 ms after one ANALYZE (issue 44, docs/BENCHMARKS.md).
 */
import type { Sql } from "../../db/client.ts";
import { maintainTable, type TableDue, tablesDue } from "../../db/table_maintenance.ts";

/** Tables a round takes at most: the rest wait for the next round, most overdue first. */
const TABLES_PER_ROUND = 8;

/** The tables maintained this round (empty: none was due, or `keepGoing` said stop). */
export async function maintainTables(
  sql: Sql,
  keepGoing: () => Promise<boolean>,
): Promise<TableDue[]> {
  const done: TableDue[] = [];
  for (const due of (await tablesDue(sql)).slice(0, TABLES_PER_ROUND)) {
    if (!await keepGoing()) break;
    await maintainTable(sql, due);
    done.push(due);
  }
  return done;
}
