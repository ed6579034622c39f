/** The knowledge indexing worker started with the server (registered in app/workers.ts). */
import type { AppDeps, Worker } from "../deps.ts";
import { INDEX_SOURCE } from "./job_queue.ts";
import { indexSourceJob } from "./index_source_job.ts";
import { startJobRunner } from "./job_runner.ts";

export function startIndexingWorker(deps: AppDeps): Worker {
  return startJobRunner(deps, { [INDEX_SOURCE]: indexSourceJob }, {
    name: "indexing",
    concurrency: deps.config.workerConcurrency,
    pollMs: 500,
  });
}
