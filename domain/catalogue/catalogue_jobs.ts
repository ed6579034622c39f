/**
 * The `catalogue_sync` job on the durable queue: one per workspace with a
 * linked storefront (dedupe key `catalogue_sync:{workspace}`). Linking and an
 * on-demand sync queue it at once; each run queues the next one after
 * CATALOGUE_SYNC_HOURS; unlinking drops it with the catalogue.
 */
import type { Executor } from "../../db/client.ts";
import { deleteJobByKey, insertJob, scheduleJobs } from "../../db/jobs.ts";

export const CATALOGUE_SYNC = "catalogue_sync";

export function catalogueJobKey(workspaceId: number): string {
  return `${CATALOGUE_SYNC}:${workspaceId}`;
}

function job(workspaceId: number) {
  return {
    kind: CATALOGUE_SYNC,
    payload: { workspaceId },
    dedupeKey: catalogueJobKey(workspaceId),
    maxAttempts: 4,
  };
}

/** Sync now (linking, or asked for): a sync waiting for its hour is moved up. */
export async function enqueueCatalogueSync(sql: Executor, workspaceId: number): Promise<void> {
  await insertJob(sql, job(workspaceId));
}

/** The next periodic sync; an earlier one already queued stays as it is. */
export async function scheduleCatalogueSync(
  sql: Executor,
  workspaceIds: number[],
  delaySeconds: number,
  opts: { keepRunning?: boolean } = {},
): Promise<void> {
  await scheduleJobs(sql, workspaceIds.map(job), delaySeconds, opts);
}

export async function cancelCatalogueSync(sql: Executor, workspaceId: number): Promise<void> {
  await deleteJobByKey(sql, catalogueJobKey(workspaceId));
}
