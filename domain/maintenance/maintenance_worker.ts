/**
 * Table maintenance where PostgreSQL's autovacuum does not run
 * (maintain_tables.ts, docs/operations.md). Every DB_MAINTENANCE_SECONDS each
 * instance ticks and the one that takes the Kv lock runs a round, so a
 * cluster maintains once per period. `auto` (the default) runs only while
 * the database has no autovacuum of its own at work: always on the embedded
 * database, on PostgreSQL only with `autovacuum = off`. On the embedded
 * database's one connection every request waits behind a table's VACUUM, so
 * each table waits for a quiet moment first.
 */
import type { AppDeps, Worker } from "../deps.ts";
import { describeError } from "../../app/logger.ts";
import { autovacuumRuns } from "../../db/table_maintenance.ts";
import { maintainTables } from "./maintain_tables.ts";

const LOCK = "db-maintenance:run";
const QUIET_MAX_WAIT_MS = 2000;

export function startMaintenanceWorker(deps: AppDeps): Worker {
  const mode = deps.config.dbMaintenance;
  if (mode === "off") return { name: "db-maintenance", stop: () => Promise.resolve() };
  const intervalMs = deps.config.dbMaintenanceSeconds * 1000;
  const owner = crypto.randomUUID();
  let stopping = false;
  let running: Promise<void> | null = null;

  const tick = async () => {
    if (mode === "auto" && !deps.db.embedded && await autovacuumRuns(deps.sql)) return;
    const lockMs = Math.max(500, intervalMs - 200);
    if (!(await deps.kv.acquire(LOCK, lockMs, owner).catch(() => false))) return;
    const keepGoing = async () => {
      if (deps.db.embedded) await deps.traffic.quiet(QUIET_MAX_WAIT_MS);
      return !stopping;
    };
    const started = performance.now();
    const done = await maintainTables(deps.sql, keepGoing);
    if (done.length) {
      deps.log.debug("tables maintained", {
        tables: done.map((t) => `${t.table} (${t.vacuum ? "vacuum+analyze" : "analyze"})`),
        ms: Math.round(performance.now() - started),
      });
    }
  };
  const timer = setInterval(() => {
    running ??= tick()
      .catch((err) => deps.log.warn("table maintenance failed", describeError(err)))
      .finally(() => running = null);
  }, intervalMs);
  return {
    name: "db-maintenance",
    async stop() {
      stopping = true;
      clearInterval(timer);
      await running;
    },
  };
}
