/**
 * Starts the scheduled syncs of url sources (app/workers.ts). Every instance
 * ticks each SITE_SYNC_CHECK_SECONDS; a tick claims the sources due by
 * the injectable clock and queues their indexing jobs in one transaction
 * (db/knowledge_sync.ts `claimDueSyncs`: row locks make each claim happen on
 * one instance only), and the job runner crawls them as a "Sync now" would.
 */
import type { AppDeps, Worker } from "../deps.ts";
import { describeError } from "../../app/logger.ts";
import { claimDueSyncs } from "../../db/knowledge_sync.ts";
import { enqueueIndexing, INDEX_SOURCE, wakeWorkers } from "../jobs/job_queue.ts";
import { publishSourceState } from "./source_progress.ts";

/** Sources claimed per tick: a backlog drains over a few ticks, not in one burst. */
const CLAIM_PER_TICK = 20;

/** Claim and queue the syncs due now; returns how many were started. */
export async function startDueSyncs(deps: AppDeps): Promise<number> {
  const claimed = await deps.sql.begin(async (tx) => {
    const due = await claimDueSyncs(tx, deps.clock(), CLAIM_PER_TICK);
    for (const s of due) await enqueueIndexing(tx, { workspaceId: s.workspace_id, sourceId: s.id });
    return due;
  });
  if (claimed.length === 0) return 0;
  await wakeWorkers(deps.kv, INDEX_SOURCE);
  for (const s of claimed) await publishSourceState(deps, s.workspace_id, s.id);
  return claimed.length;
}

export function startSyncScheduler(deps: AppDeps): Worker {
  if (deps.config.workerConcurrency <= 0) {
    return { name: "knowledge-sync", stop: () => Promise.resolve() };
  }
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    running ??= startDueSyncs(deps)
      .catch((err) => deps.log.warn("scheduled syncs not started", describeError(err)))
      .finally(() => running = null);
  }, deps.config.siteSyncCheckSeconds * 1000);
  return {
    name: "knowledge-sync",
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
