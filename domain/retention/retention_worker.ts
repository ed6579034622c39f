/**
 * Runs retention once per RETENTION_INTERVAL_SECONDS across all instances:
 * every instance ticks, and the one that takes the Kv lock `retention:run`
 * runs (renewing the lock between batches); the lock is left to expire at the
 * end of the interval, so the next tick anywhere finds it taken until then.
 * Without Kv (Redis down) no run starts: a run missed is made up at the next.
 */
import type { AppDeps, Worker } from "../deps.ts";
import { runRetention } from "./run_retention.ts";

const LOCK = "retention:run";

export function startRetentionWorker(deps: AppDeps): Worker {
  const intervalMs = deps.config.retentionIntervalSeconds * 1000;
  const owner = crypto.randomUUID();
  let stopping = false;
  let running: Promise<void> | null = null;

  const tick = async () => {
    const lockMs = Math.max(500, intervalMs - 200);
    if (!(await deps.kv.acquire(LOCK, lockMs, owner).catch(() => false))) return;
    const keepGoing = async () =>
      !stopping && await deps.kv.renew(LOCK, owner, lockMs).catch(() => false);
    await runRetention(deps, deps.config.retentionBatchSize, keepGoing);
  };
  const timer = setInterval(() => {
    running ??= tick().catch((err) => deps.log.warn("retention run failed", { err: String(err) }))
      .finally(() => running = null);
  }, intervalMs);
  return {
    name: "retention",
    async stop() {
      stopping = true;
      clearInterval(timer);
      await running;
    },
  };
}
