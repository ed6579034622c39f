/**
 * A run once per period across all instances (retention, table maintenance,
 * the report rollup): every instance ticks, and the one that takes the Kv
 * lock runs, renewing the lock between steps. The lock is left to expire at
 * the end of the period, so the next tick anywhere finds it taken until then.
 * Without Kv (Redis down) no run starts: a run missed is made up at the next.
 *
 * A run goes in steps (batches, tables, rounds) and asks `keepGoing` before
 * each. On the embedded database's one connection every request waits behind
 * a step, so there each step first waits for a quiet moment (no request in
 * hand, up to QUIET_MAX_WAIT_MS), as the job runner and the webhook worker do.
 */
import type { AppDeps, Worker } from "../deps.ts";
import { describeError } from "../../app/logger.ts";

const QUIET_MAX_WAIT_MS = 2000;

export interface PeriodicRun {
  name: string;
  /** The Kv lock's key, one per kind of run. */
  lock: string;
  intervalSeconds: number;
  /** Asked before the lock: false skips this tick (nothing to do here now). */
  wanted?: () => Promise<boolean>;
  /** One run; false from `keepGoing` means stop at once (stopping, or the lock lost). */
  run(keepGoing: () => Promise<boolean>): Promise<unknown>;
}

export function startPeriodicWorker(deps: AppDeps, p: PeriodicRun): Worker {
  const intervalMs = p.intervalSeconds * 1000;
  const lockMs = Math.max(500, intervalMs - 200);
  const owner = crypto.randomUUID();
  let stopping = false;
  let running: Promise<void> | null = null;

  const keepGoing = async () => {
    if (deps.db.embedded) await deps.traffic.quiet(QUIET_MAX_WAIT_MS);
    return !stopping && await deps.kv.renew(p.lock, owner, lockMs).catch(() => false);
  };
  const tick = async () => {
    if (p.wanted && !await p.wanted()) return;
    if (!(await deps.kv.acquire(p.lock, lockMs, owner).catch(() => false))) return;
    await p.run(keepGoing);
  };
  const timer = setInterval(() => {
    running ??= tick()
      .catch((err) => deps.log.warn(`${p.name} failed`, describeError(err)))
      .finally(() => running = null);
  }, intervalMs);
  return {
    name: p.name,
    async stop() {
      stopping = true;
      clearInterval(timer);
      await running;
    },
  };
}
