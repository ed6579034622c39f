/**
 * Runs durable jobs inside the server process: up to `concurrency` at once,
 * claimed with SKIP LOCKED so several instances share the queue without ever
 * running one job twice; each claim is a lease kept alive while the job runs,
 * so a job of a crashed process is claimed again once its lease expires.
 * Failures retry with exponential backoff; a PermanentJobError, or the last
 * attempt, gives up and lets the handler record the reason.
 */
import type { AppDeps, Worker } from "../deps.ts";
import { describeError } from "../../app/logger.ts";
import {
  claimJobs,
  completeJob,
  extendLease,
  failJob,
  type JobRow,
  purgeDoneJobs,
  releaseJob,
  retryJob,
} from "../../db/jobs.ts";
import { ANY_KIND, JOBS_CHANNEL } from "./job_queue.ts";
import { recordJob } from "../observability/metrics.ts";

/** Finished jobs are kept this long (for inspection), then purged hourly. */
const DONE_JOBS_KEPT_DAYS = 7;

/** A failure that another attempt cannot fix (refused address, unusable input). */
export class PermanentJobError extends Error {}

export interface JobContext {
  /** Aborted on shutdown or when the lease is lost: stop promptly. */
  signal: AbortSignal;
  /** The job's row id: stable across attempts, a key for work it fans out. */
  jobId: number;
  attempt: number;
  maxAttempts: number;
  /**
   * Embedded, resolves at a moment with no request in hand (app/traffic.ts):
   * a handler awaits it between its statements, which would otherwise queue in
   * front of a visitor's on the one connection. Immediate on PostgreSQL.
   */
  pace(): Promise<void> | undefined;
}

export interface JobHandler {
  run(deps: AppDeps, payload: Record<string, unknown>, ctx: JobContext): Promise<void>;
  /** A failed attempt that will be retried. */
  onRetry?(deps: AppDeps, payload: Record<string, unknown>, reason: string): Promise<void>;
  /** The job gave up: record why where users can see it. */
  onGiveUp(deps: AppDeps, payload: Record<string, unknown>, reason: string): Promise<void>;
}

export interface RunnerOptions {
  name: string;
  concurrency: number;
  leaseSeconds?: number;
  pollMs?: number;
  /** Backoff of retry n is base * 2^(n-1) seconds, capped at 10 minutes. */
  backoffBaseSeconds?: number;
}

/**
 * Embedded, the longest a job statement waits for a moment with no request in
 * hand: under unbroken traffic jobs still move, a step at a time.
 */
const QUIET_MAX_WAIT_MS = 250;

export function backoffSeconds(attempt: number, base: number): number {
  return Math.min(600, base * 2 ** Math.max(0, attempt - 1));
}

export function startJobRunner(
  deps: AppDeps,
  handlers: Record<string, JobHandler>,
  opts: RunnerOptions,
): Worker {
  const workerId = `${Deno.hostname()}:${Deno.pid}:${crypto.randomUUID().slice(0, 8)}`;
  const lease = opts.leaseSeconds ?? 60;
  const kinds = Object.keys(handlers);
  const running = new Map<number, { abort: AbortController; done: Promise<void> }>();
  let stopping = false;
  let claiming = false;
  let again = false;
  // The embedded database is one connection, on the server's own thread: a job's
  // statement queued in front of a visitor's turn delays its `meta` and first delta,
  // so each waits for a quiet moment, as webhook deliveries do. PostgreSQL has a pool.
  const pace = deps.db.embedded ? () => deps.traffic.quiet(QUIET_MAX_WAIT_MS) : () => undefined;

  const execute = async (job: JobRow, abort: AbortController) => {
    const handler = handlers[job.kind]!;
    const keepAlive = setInterval(() => {
      extendLease(deps.sql, job.id, workerId, lease)
        .then((held) => held || abort.abort(new Error("lease lost")))
        .catch(() => {});
    }, (lease * 1000) / 3);
    const started = performance.now();
    try {
      await pace();
      await handler.run(deps, job.payload, {
        signal: abort.signal,
        jobId: job.id,
        attempt: job.attempts,
        maxAttempts: job.max_attempts,
        pace,
      });
      await pace();
      await completeJob(deps.sql, job.id, workerId);
      recordJob(job.kind, "done", (performance.now() - started) / 1000);
      deps.log.info("job done", {
        kind: job.kind,
        id: job.id,
        attempt: job.attempts,
        duration_ms: Math.round(performance.now() - started),
      });
    } catch (err) {
      if (abort.signal.aborted) {
        // Shutting down: hand the job back. Lease lost: another worker owns it now.
        if (stopping) await releaseJob(deps.sql, job.id, workerId).catch(() => {});
        return;
      }
      const reason = (err instanceof Error ? err.message : String(err)).slice(0, 1000);
      const permanent = err instanceof PermanentJobError;
      if (!permanent) {
        deps.log.warn("job attempt failed", { kind: job.kind, id: job.id, ...describeError(err) });
      }
      const gaveUp = permanent || job.attempts >= job.max_attempts;
      recordJob(job.kind, gaveUp ? "failed" : "retry", (performance.now() - started) / 1000);
      if (gaveUp) {
        await failJob(deps.sql, job.id, workerId, reason);
        await handler.onGiveUp(deps, job.payload, reason).catch(() => {});
      } else {
        const delay = backoffSeconds(job.attempts, opts.backoffBaseSeconds ?? 5);
        await retryJob(deps.sql, job.id, workerId, delay, reason);
        await handler.onRetry?.(deps, job.payload, reason).catch(() => {});
      }
    } finally {
      clearInterval(keepAlive);
    }
  };

  // One claimer at a time; a wake-up during a claim round triggers another round.
  const fill = async () => {
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    try {
      do {
        again = false;
        while (!stopping && running.size < opts.concurrency) {
          const free = opts.concurrency - running.size;
          await pace();
          const jobs = await claimJobs(deps.sql, workerId, kinds, lease, free);
          for (const job of jobs) {
            const entry = { abort: new AbortController(), done: Promise.resolve() };
            entry.done = execute(job, entry.abort).catch((err) =>
              deps.log.error("job bookkeeping failed", { id: job.id, ...describeError(err) })
            ).finally(() => {
              running.delete(job.id);
              if (!stopping) void fill();
            });
            running.set(job.id, entry);
          }
          if (jobs.length < free) break; // none left due: no second, empty claim
        }
      } while (again && !stopping);
    } catch (err) {
      if (!stopping) deps.log.warn("job claim failed", describeError(err));
    } finally {
      claiming = false;
    }
  };

  if (opts.concurrency <= 0 || kinds.length === 0) {
    return { name: opts.name, stop: () => Promise.resolve() };
  }
  const timer = setInterval(() => void fill(), opts.pollMs ?? 1000);
  const purger = setInterval(() => {
    purgeDoneJobs(deps.sql, DONE_JOBS_KEPT_DAYS).catch(() => {});
  }, 3_600_000);
  let unsubscribe: (() => Promise<void>) | null = null;
  // A wake-up names the kind queued ("wake": any); other runners' kinds cost no claim here.
  const wakesMe = (message: string) => message === ANY_KIND || kinds.includes(message);
  deps.kv.subscribe(JOBS_CHANNEL, (message) => wakesMe(message) && void fill()).then((u) => {
    if (stopping) void u();
    else unsubscribe = u;
  }).catch((err) => deps.log.warn("job wake-ups unavailable; polling only", describeError(err)));
  void fill();
  return {
    name: opts.name,
    async stop() {
      stopping = true;
      clearInterval(timer);
      clearInterval(purger);
      await unsubscribe?.();
      while (claiming) await new Promise((r) => setTimeout(r, 10));
      for (const r of running.values()) r.abort.abort(new Error("shutting down"));
      await Promise.all([...running.values()].map((r) => r.done));
    },
  };
}
