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
/**
 * The embedded database has one connection: every request waits behind a
 * batch. There a batch is at most EMBEDDED_BATCH conversations, and each
 * waits for a quiet moment (no request in hand, up to QUIET_MAX_WAIT_MS), as
 * the job runner and the webhook worker do.
 */
const EMBEDDED_BATCH = 25;
const QUIET_MAX_WAIT_MS = 2000;

export function startRetentionWorker(deps: AppDeps): Worker {
  const intervalMs = deps.config.retentionIntervalSeconds * 1000;
  const owner = crypto.randomUUID();
  let stopping = false;
  let running: Promise<void> | null = null;

  const tick = async () => {
    const lockMs = Math.max(500, intervalMs - 200);
    if (!(await deps.kv.acquire(LOCK, lockMs, owner).catch(() => false))) return;
    const keepGoing = async () => {
      if (deps.db.embedded) await deps.traffic.quiet(QUIET_MAX_WAIT_MS);
      return !stopping && await deps.kv.renew(LOCK, owner, lockMs).catch(() => false);
    };
    const batch = deps.db.embedded
      ? Math.min(EMBEDDED_BATCH, deps.config.retentionBatchSize)
      : deps.config.retentionBatchSize;
    await runRetention(deps, batch, keepGoing);
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
