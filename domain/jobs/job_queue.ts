/**
 * Enqueueing background work. A job row is written in the caller's
 * transaction, so a source and its indexing job exist together or not at all;
 * workers are woken through the Kv channel after the commit (with Redis, on
 * every instance), and poll as a fallback.
 */
import type { Executor } from "../../db/client.ts";
import type { Kv } from "../../kv/kv.ts";
import { deleteJobByKey, insertJob } from "../../db/jobs.ts";

export const JOBS_CHANNEL = "jobs";
export const INDEX_SOURCE = "index_source";

export interface IndexSourcePayload {
  workspaceId: number;
  sourceId: number;
}

export function indexJobKey(sourceId: number): string {
  return `${INDEX_SOURCE}:${sourceId}`;
}

export async function enqueueIndexing(
  tx: Executor,
  payload: IndexSourcePayload,
): Promise<number> {
  return await insertJob(tx, {
    kind: INDEX_SOURCE,
    payload: { ...payload },
    dedupeKey: indexJobKey(payload.sourceId),
  });
}

/** Drop the indexing job of a deleted source (a running one finds its source gone). */
export async function cancelIndexing(tx: Executor, sourceId: number): Promise<void> {
  await deleteJobByKey(tx, indexJobKey(sourceId));
}

/** The wake-up for every runner, whatever it runs (and what older instances send). */
export const ANY_KIND = "wake";

/**
 * Tell idle workers on every instance that a job is waiting. Only a speed-up:
 * workers also poll every second, so without Redis the job still runs. Naming
 * the `kind` wakes only the runner that takes it: every runner woken claims
 * at least once, and on the embedded database each claim is a statement on
 * the one connection a visitor's next message waits for.
 */
export async function wakeWorkers(kv: Kv, kind: string = ANY_KIND): Promise<void> {
  await kv.publish(JOBS_CHANNEL, kind).catch(() => {});
}
