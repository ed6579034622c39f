/**
 * Per-window statement figures for long benches (the soak): from
 * pg_stat_statements, where the server preloads it (`shared_preload_libraries
 * = 'pg_stat_statements'`, a restart; docs/BENCHMARKS.md says how), the
 * statements of this database that took the most time in all and the longest
 * once since the last window, the four longest VACUUM and ANALYZE runs, and
 * every window the statements named in `tracked` (the soak's visitor and
 * agent paths). A statement that slows with uptime then shows by name in one
 * run (issue 44); its buffers and WAL bytes per call say whether it does more
 * work (more pages read, more full-page images written) or only waits longer.
 */
import type postgres from "postgres";

export interface StatementStats {
  /** The window's lines (Markdown list items); the counters start again for the next. */
  window(): Promise<string[]>;
}

interface Row {
  query: string;
  calls: number;
  total: number;
  mean: number;
  max: number;
  /** Shared buffers hit or read, per call. */
  buffers: number;
  /** WAL bytes written, per call (full-page images make it grow after each checkpoint). */
  wal: number;
}

/** Null when the server does not load pg_stat_statements. */
export async function startStatementStats(
  sql: postgres.Sql,
  /** Statements shown every window, by a pattern of their text. */
  tracked: { name: string; pattern: RegExp }[] = [],
): Promise<StatementStats | null> {
  try {
    await sql`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`;
    await sql`SELECT 1 FROM pg_stat_statements LIMIT 1`;
  } catch {
    return null;
  }
  const reset = () =>
    sql`SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database
                                             WHERE datname = current_database()), 0)`;
  await reset();
  const line = (r: Row) =>
    `${r.calls} × ${r.mean.toFixed(2)} ms (max ${r.max.toFixed(1)}, total ${r.total.toFixed(0)}; ${
      r.buffers.toFixed(0)
    } buffers, ${r.wal.toFixed(0)} WAL bytes a call): \`${
      r.query.replace(/\s+/g, " ").slice(0, 110)
    }\``;
  return {
    async window() {
      const rows = await sql<Row[]>`
        SELECT query, calls::float8 AS calls, total_exec_time AS total,
               mean_exec_time AS mean, max_exec_time AS max,
               (shared_blks_hit + shared_blks_read)::float8 / greatest(calls, 1) AS buffers,
               wal_bytes::float8 / greatest(calls, 1) AS wal
          FROM pg_stat_statements
         WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND query NOT LIKE '%pg_stat_statements%'`;
      await reset();
      const by = (k: "total" | "max", n: number) =>
        [...rows].sort((a, b) => b[k] - a[k]).slice(0, n);
      const maintenance = rows.filter((r) => /^\s*(VACUUM|ANALYZE)/i.test(r.query));
      return [
        ...by("total", 3).map((r) => `  - most time: ${line(r)}`),
        ...by("max", 3).map((r) => `  - longest: ${line(r)}`),
        ...maintenance.sort((a, b) => b.max - a.max).slice(0, 4).map((r) =>
          `  - maintenance: ${line(r)}`
        ),
        ...tracked.flatMap(({ name, pattern }) => {
          const mine = rows.filter((r) => pattern.test(r.query)).sort((a, b) => b.total - a.total);
          return mine.length ? [`  - ${name}: ${line(mine[0]!)}`] : [];
        }),
      ];
    },
  };
}
