/**
 * Table maintenance where PostgreSQL's autovacuum does not run
 * (maintain_tables.ts, docs/operations.md), once per DB_MAINTENANCE_SECONDS
 * across the cluster (domain/jobs/periodic_worker.ts). `auto` (the default)
 * runs only while the database has no autovacuum of its own at work: always
 * on the embedded database, on PostgreSQL only with `autovacuum = off`. On
 * the embedded database's one connection every request waits behind a
 * table's VACUUM, so each table waits for a quiet moment first.
 */
import type { AppDeps, Worker } from "../deps.ts";
import { autovacuumRuns } from "../../db/table_maintenance.ts";
import { startPeriodicWorker } from "../jobs/periodic_worker.ts";
import { maintainTables } from "./maintain_tables.ts";

export function startMaintenanceWorker(deps: AppDeps): Worker {
  const mode = deps.config.dbMaintenance;
  if (mode === "off") return { name: "db-maintenance", stop: () => Promise.resolve() };
  return startPeriodicWorker(deps, {
    name: "db-maintenance",
    lock: "db-maintenance:run",
    intervalSeconds: deps.config.dbMaintenanceSeconds,
    wanted: async () => mode === "on" || deps.db.embedded || !await autovacuumRuns(deps.sql),
    async run(keepGoing) {
      const started = performance.now();
      const done = await maintainTables(deps.sql, keepGoing);
      if (done.length) {
        deps.log.debug("tables maintained", {
          tables: done.map((t) => `${t.table} (${t.vacuum ? "vacuum+analyze" : "analyze"})`),
          ms: Math.round(performance.now() - started),
        });
      }
    },
  });
}
