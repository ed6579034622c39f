/**
 * What a running server reports when Prometheus scrapes it: its sockets and
 * their subscriptions, the shared job queue, and its database pool.
 */
import type { AppDeps } from "../deps.ts";
import type { MetricsSource } from "./metrics.ts";
import { jobQueueSummary } from "../../db/jobs.ts";
import { poolConnections } from "../../db/pool_connections.ts";

export function metricsSource(deps: Pick<AppDeps, "db" | "realtime">): MetricsSource {
  return {
    sockets: () => deps.realtime.stats(),
    jobs: () => jobQueueSummary(deps.db.sql),
    pool: async () => {
      const size = deps.db.poolSize;
      // The embedded database has one connection, always open.
      if (deps.db.embedded) return { size, inUse: 0, idle: 0 };
      const { active, idle } = await poolConnections(deps.db.sql, deps.db.applicationName);
      // The scrape's own query holds one connection: not the application's use.
      return { size, inUse: Math.max(0, active - 1), idle };
    },
  };
}
