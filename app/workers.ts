/**
 * Background workers started with the server and stopped on shutdown.
 * Each surface's workers (indexing jobs, presence sweeps) are listed here.
 */
import type { AppDeps, Worker } from "../domain/deps.ts";
import { startIndexingWorker } from "../domain/jobs/indexing_worker.ts";
import { startNotificationsWorker } from "../domain/notifications/notifications_worker.ts";
import { startCatalogueWorker } from "../domain/catalogue/catalogue_worker.ts";
import { startWebhookWorker } from "../domain/webhooks/webhook_worker.ts";
import { startScreenShareCloser } from "../domain/screen_share/screen_share_closer.ts";
import { startAuditPruner } from "../domain/audit/audit_pruner.ts";
import { startRetentionWorker } from "../domain/retention/retention_worker.ts";
import { startSyncScheduler } from "../domain/knowledge/sync_scheduler.ts";
import { startMaintenanceWorker } from "../domain/maintenance/maintenance_worker.ts";
import { startReportRollupWorker } from "../domain/reports/report_rollup_worker.ts";

export type WorkerFactory = (deps: AppDeps) => Worker;

const FACTORIES: WorkerFactory[] = [
  startIndexingWorker,
  startNotificationsWorker,
  startCatalogueWorker,
  startWebhookWorker,
  startScreenShareCloser,
  startAuditPruner,
  startRetentionWorker,
  startSyncScheduler,
  startMaintenanceWorker,
  startReportRollupWorker,
];

export function startWorkers(deps: AppDeps): Worker[] {
  return FACTORIES.map((start) => start(deps));
}
