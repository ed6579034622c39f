/**
 * jobs: the durable background queue. Claims use `FOR UPDATE SKIP LOCKED`, so
 * any number of workers in any number of instances take each job once; a
 * lease (`locked_until`) returns the job of a dead process to the queue.
 * Not tenant-scoped: a job names its workspace in its payload.
 */
import type { Executor } from "./client.ts";

export interface JobRow {
  id: number;
  kind: string;
  payload: Record<string, unknown>;
  attempts: number;
  max_attempts: number;
}

export interface NewJob {
  kind: string;
  payload: Record<string, unknown>;
  /** One live job per key: enqueueing a finished key queues it again. */
  dedupeKey: string;
  maxAttempts?: number;
}

/**
 * `jobs` as the rows `j(kind, payload, dedupe_key, max_attempts)` of an
 * `INSERT … SELECT`: one parameter however many jobs there are.
 */
export function newJobRows(sql: Executor, jobs: NewJob[]) {
  return sql`jsonb_to_recordset(${
    sql.json(jobs.map((j) => ({
      kind: j.kind,
      payload: j.payload,
      dedupe_key: j.dedupeKey,
      max_attempts: j.maxAttempts ?? 5,
    })) as never)
  }) AS j(kind text, payload jsonb, dedupe_key text, max_attempts integer)`;
}

export async function insertJob(sql: Executor, job: NewJob): Promise<number> {
  const [row] = await sql<{ id: number }[]>`
    INSERT INTO jobs (kind, payload, dedupe_key, max_attempts)
    VALUES (${job.kind}, ${sql.json(job.payload as never)}, ${job.dedupeKey},
            ${job.maxAttempts ?? 5})
    ON CONFLICT (dedupe_key) DO UPDATE SET status = 'queued', attempts = 0, run_at = now(),
      payload = EXCLUDED.payload, last_error = NULL, locked_by = NULL, locked_until = NULL,
      updated_at = now()
    RETURNING id`;
  return row!.id;
}

/**
 * Claim up to `limit` due jobs of `kinds` (or jobs whose lease expired) for
 * `workerId`, oldest first. One statement for the whole batch: a runner asks
 * for as many as it has free slots, and a batch shorter than asked means the
 * queue is empty for now, so no second, empty claim is needed.
 */
export async function claimJobs(
  sql: Executor,
  workerId: string,
  kinds: string[],
  leaseSeconds: number,
  limit: number,
): Promise<JobRow[]> {
  const rows = await sql<(JobRow & { run_at: Date })[]>`
    UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_by = ${workerId},
           locked_until = now() + make_interval(secs => ${leaseSeconds}), updated_at = now()
     WHERE id IN (
       SELECT id FROM jobs
        WHERE kind = ANY(${sql.array(kinds)}::text[])
          AND ((status = 'queued' AND run_at <= now())
               OR (status = 'running' AND locked_until < now()))
        ORDER BY run_at, id
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
    RETURNING id, kind, payload, attempts, max_attempts, run_at`;
  // RETURNING keeps no order: the oldest starts first.
  rows.sort((a, b) => a.run_at.getTime() - b.run_at.getTime() || a.id - b.id);
  return rows.map(({ run_at: _, ...job }) => job);
}

/** Extend the lease of a job still held by `workerId`; false when it was lost. */
export async function extendLease(
  sql: Executor,
  id: number,
  workerId: string,
  leaseSeconds: number,
): Promise<boolean> {
  const rows = await sql`
    UPDATE jobs SET locked_until = now() + make_interval(secs => ${leaseSeconds})
     WHERE id = ${id} AND locked_by = ${workerId} AND status = 'running'
    RETURNING id`;
  return rows.length > 0;
}

export async function completeJob(sql: Executor, id: number, workerId: string): Promise<void> {
  await sql`
    UPDATE jobs SET status = 'done', locked_by = NULL, locked_until = NULL, last_error = NULL,
           updated_at = now()
     WHERE id = ${id} AND locked_by = ${workerId}`;
}

/** Put a failed attempt back in the queue, due in `delaySeconds`. */
export async function retryJob(
  sql: Executor,
  id: number,
  workerId: string,
  delaySeconds: number,
  error: string,
): Promise<void> {
  await sql`
    UPDATE jobs SET status = 'queued', locked_by = NULL, locked_until = NULL,
           run_at = now() + make_interval(secs => ${delaySeconds}), last_error = ${error},
           updated_at = now()
     WHERE id = ${id} AND locked_by = ${workerId}`;
}

export async function failJob(
  sql: Executor,
  id: number,
  workerId: string,
  error: string,
): Promise<void> {
  await sql`
    UPDATE jobs SET status = 'failed', locked_by = NULL, locked_until = NULL,
           last_error = ${error}, updated_at = now()
     WHERE id = ${id} AND locked_by = ${workerId}`;
}

/**
 * Hand a job back on a clean shutdown: due at once, and the interrupted attempt
 * not counted, so the next start resumes it without waiting for the lease.
 */
export async function releaseJob(sql: Executor, id: number, workerId: string): Promise<void> {
  await sql`
    UPDATE jobs SET status = 'queued', locked_by = NULL, locked_until = NULL, run_at = now(),
           attempts = GREATEST(attempts - 1, 0), updated_at = now()
     WHERE id = ${id} AND locked_by = ${workerId}`;
}

export async function deleteJobByKey(sql: Executor, dedupeKey: string): Promise<void> {
  await sql`DELETE FROM jobs WHERE dedupe_key = ${dedupeKey}`;
}

/** Forget finished jobs older than `days`: the queue table stays small. */
export async function purgeDoneJobs(sql: Executor, days: number): Promise<number> {
  const rows = await sql`
    DELETE FROM jobs WHERE status = 'done' AND updated_at < now() - make_interval(days => ${days})
    RETURNING id`;
  return rows.length;
}

/**
 * Insert jobs whose keys are not taken yet, in one statement. Every instance
 * sees every domain event, so each may try the same key: the first wins and
 * the rest change nothing (a finished job is not run again).
 */
export async function insertJobsOnce(
  sql: Executor,
  jobs: NewJob[],
  delaySeconds = 0,
): Promise<number> {
  if (jobs.length === 0) return 0;
  const rows = await sql`
    INSERT INTO jobs (kind, payload, dedupe_key, max_attempts, run_at)
    SELECT j.kind, j.payload, j.dedupe_key, j.max_attempts,
           now() + make_interval(secs => ${delaySeconds})
      FROM ${newJobRows(sql, jobs)}
    ON CONFLICT (dedupe_key) DO NOTHING
    RETURNING id`;
  return rows.length;
}

/**
 * Have a job due in `delaySeconds`, unless one with its key is already queued
 * (then it keeps its time: what arrives meanwhile joins that run). A running
 * or finished job is queued again, so work added while it runs is not lost.
 */
export async function scheduleJobs(
  sql: Executor,
  jobs: NewJob[],
  delaySeconds: number,
  /** Leave a running job alone (a start making sure a recurring job exists). */
  opts: { keepRunning?: boolean } = {},
): Promise<void> {
  const keep = opts.keepRunning ? ["queued", "running"] : ["queued"];
  if (jobs.length === 0) return;
  await sql`
    INSERT INTO jobs (kind, payload, dedupe_key, max_attempts, run_at)
    SELECT j.kind, j.payload, j.dedupe_key, j.max_attempts,
           now() + make_interval(secs => ${delaySeconds})
      FROM ${newJobRows(sql, jobs)}
    ON CONFLICT (dedupe_key) DO UPDATE SET status = 'queued', attempts = 0,
      run_at = EXCLUDED.run_at, payload = EXCLUDED.payload, last_error = NULL, locked_by = NULL,
      locked_until = NULL, updated_at = now()
     WHERE jobs.status <> ALL(${sql.array(keep)}::text[])`;
}

/** Narrow a running job's payload to what is left to do before it is retried. */
export async function updateJobPayload(
  sql: Executor,
  id: number,
  payload: Record<string, unknown>,
): Promise<void> {
  await sql`UPDATE jobs SET payload = ${sql.json(payload as never)} WHERE id = ${id}`;
}

export interface JobQueueRow {
  kind: string;
  status: string;
  count: number;
  /** Seconds the oldest due job has waited (queued rows; 0 otherwise). */
  oldestSeconds: number;
}

/**
 * The queue's shape for /metrics: jobs not done, by kind and status, and how
 * long the oldest due one has waited. Finished jobs are skipped (and purged).
 */
export async function jobQueueSummary(sql: Executor): Promise<JobQueueRow[]> {
  return await sql<JobQueueRow[]>`
    SELECT kind, status, count(*)::int AS count,
           COALESCE(EXTRACT(EPOCH FROM now() - min(run_at) FILTER (WHERE run_at <= now())), 0)
             ::float8 AS "oldestSeconds"
      FROM jobs
     WHERE status IN ('queued', 'running', 'failed')
     GROUP BY kind, status`;
}
