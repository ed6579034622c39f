/**
 * The catalogue worker started with the server (app/workers.ts): a job runner
 * for `catalogue_sync`. At start it makes sure every linked storefront has its
 * periodic sync queued (a sync already queued or running is left alone).
 */
import type { AppDeps, Worker } from "../deps.ts";
import { describeError } from "../../app/logger.ts";
import { storefrontWorkspaces } from "../../db/catalogue.ts";
import { startJobRunner } from "../jobs/job_runner.ts";
import { CATALOGUE_SYNC, scheduleCatalogueSync } from "./catalogue_jobs.ts";
import { syncCatalogueJob } from "./sync_catalogue_job.ts";

export function startCatalogueWorker(deps: AppDeps): Worker {
  if (deps.config.workerConcurrency <= 0) {
    return { name: "catalogue", stop: () => Promise.resolve() };
  }
  storefrontWorkspaces(deps.sql)
    .then((ids) => scheduleCatalogueSync(deps.sql, ids, 0, { keepRunning: true }))
    .catch((err) => deps.log.warn("catalogue syncs not scheduled", describeError(err)));
  return startJobRunner(deps, { [CATALOGUE_SYNC]: syncCatalogueJob }, {
    name: "catalogue",
    concurrency: 1,
    pollMs: 1000,
    backoffBaseSeconds: 30,
  });
}
