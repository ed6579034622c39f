/**
 * What a running server reports when Prometheus scrapes it: its sockets and
 * their subscriptions, the shared job queue, its database pool, and the
 * visitor turns waiting for their commit.
 */
import type { AppDeps } from "../deps.ts";
import type { MetricsSource } from "./metrics.ts";
import { type JobQueueRow, jobQueueSummary } from "../../db/jobs.ts";
import { poolConnections } from "../../db/pool_connections.ts";
import { turnsInFlight } from "../conversations/turns_in_flight.ts";

type Pool = { size: number; inUse: number; idle: number };

/** One scrape's database readings are shared by its gauges (taken once, not once per gauge). */
const READING_KEPT_MS = 1000;

export function metricsSource(deps: Pick<AppDeps, "db" | "realtime" | "sql">): MetricsSource {
  let reading: { at: number; value: Promise<{ pool: Pool; jobs: JobQueueRow[] }> } | null = null;
  const read = () => {
    const now = performance.now();
    if (!reading || now - reading.at > READING_KEPT_MS) {
      reading = { at: now, value: readDatabase(deps) };
    }
    return reading.value;
  };
  return {
    sockets: () => deps.realtime.stats(),
    jobs: async () => (await read()).jobs,
    pool: async () => (await read()).pool,
    turnsStoring: () => turnsInFlight(deps).waiting,
  };
}

/**
 * One after the other: while the pool is counted, the scrape holds exactly
 * one connection (its own query), which is left out of `inUse`.
 */
async function readDatabase(
  deps: Pick<AppDeps, "db">,
): Promise<{ pool: Pool; jobs: JobQueueRow[] }> {
  const size = deps.db.poolSize;
  let pool: Pool = { size, inUse: 0, idle: 0 };
  // The embedded database has one connection, always open: nothing to count.
  if (!deps.db.embedded) {
    const { active, idle } = await poolConnections(deps.db.sql, deps.db.applicationName);
    pool = { size, inUse: Math.max(0, active - 1), idle };
  }
  return { pool, jobs: await jobQueueSummary(deps.db.sql) };
}
