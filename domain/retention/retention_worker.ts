/**
 * Runs retention once per RETENTION_INTERVAL_SECONDS across all instances
 * (domain/jobs/periodic_worker.ts: one instance a period, under the Kv lock
 * `retention:run`, renewed between batches).
 */
import type { AppDeps, Worker } from "../deps.ts";
import { startPeriodicWorker } from "../jobs/periodic_worker.ts";
import { runRetention } from "./run_retention.ts";

/**
 * The embedded database has one connection: every request waits behind a
 * batch. There a batch is at most EMBEDDED_BATCH conversations (and each
 * waits for a quiet moment, as every periodic run's step does there).
 */
const EMBEDDED_BATCH = 25;

export function startRetentionWorker(deps: AppDeps): Worker {
  const batch = deps.db.embedded
    ? Math.min(EMBEDDED_BATCH, deps.config.retentionBatchSize)
    : deps.config.retentionBatchSize;
  return startPeriodicWorker(deps, {
    name: "retention",
    lock: "retention:run",
    intervalSeconds: deps.config.retentionIntervalSeconds,
    run: (keepGoing) => runRetention(deps, batch, keepGoing),
  });
}
