/**
 * What PostgreSQL's autovacuum would do, for where it does not run: the
 * embedded database (PGlite runs without background workers) and a server
 * started with `autovacuum = off`. The statistics views say which tables
 * changed enough, by autovacuum's own default formulas; VACUUM and ANALYZE
 * run one table at a time, skipping a table someone else holds.
 */
import type { Sql } from "./client.ts";

/** A table whose dead rows or changes since its last ANALYZE passed autovacuum's thresholds. */
export interface TableDue {
  table: string;
  vacuum: boolean;
  analyze: boolean;
  deadRows: number;
  changedSinceAnalyze: number;
  liveRows: number;
}

// autovacuum's defaults: vacuum past 50 + 20 % dead rows, analyze past 50 + 10 % changed rows.
const VACUUM_BASE = 50;
const VACUUM_SHARE = 0.2;
const ANALYZE_BASE = 50;
const ANALYZE_SHARE = 0.1;

/** Whether this server's own autovacuum is at work (a launcher runs and the setting is on). */
export async function autovacuumRuns(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ runs: boolean }[]>`
    SELECT current_setting('autovacuum')::boolean
       AND EXISTS (SELECT 1 FROM pg_stat_activity WHERE backend_type = 'autovacuum launcher')
       AS runs`;
  return row?.runs === true;
}

/** The tables due for VACUUM or ANALYZE, the most overdue first. */
export async function tablesDue(sql: Sql): Promise<TableDue[]> {
  const rows = await sql<
    { table: string; dead: number; changed: number; live: number }[]
  >`
    SELECT format('%I.%I', schemaname, relname) AS table,
           n_dead_tup::float8 AS dead, n_mod_since_analyze::float8 AS changed,
           n_live_tup::float8 AS live
      FROM pg_stat_user_tables
     WHERE n_dead_tup > ${VACUUM_BASE}::float8 + ${VACUUM_SHARE}::float8 * n_live_tup
        OR n_mod_since_analyze > ${ANALYZE_BASE}::float8 + ${ANALYZE_SHARE}::float8 * n_live_tup`;
  return rows
    .map((r) => ({
      table: r.table,
      vacuum: r.dead > VACUUM_BASE + VACUUM_SHARE * r.live,
      analyze: r.changed > ANALYZE_BASE + ANALYZE_SHARE * r.live,
      deadRows: r.dead,
      changedSinceAnalyze: r.changed,
      liveRows: r.live,
    }))
    .sort((a, b) => overdue(b) - overdue(a));
}

function overdue(t: TableDue): number {
  return Math.max(
    t.deadRows / (VACUUM_BASE + VACUUM_SHARE * t.liveRows),
    t.changedSinceAnalyze / (ANALYZE_BASE + ANALYZE_SHARE * t.liveRows),
  );
}

/**
 * VACUUM (with ANALYZE) or ANALYZE alone, as due. `table` comes from
 * `tablesDue` (quoted by the database's own format('%I.%I')). ANALYZE
 * invalidates the plans prepared statements keep, so they are made again
 * for the table as it is now.
 */
export async function maintainTable(sql: Sql, due: TableDue): Promise<void> {
  if (due.vacuum) await sql.unsafe(`VACUUM (ANALYZE, SKIP_LOCKED) ${due.table}`);
  else await sql.unsafe(`ANALYZE (SKIP_LOCKED) ${due.table}`);
}
