/**
 * This instance's connections as PostgreSQL sees them (postgres.js does not
 * expose its pool): those named with the pool's `application_name`.
 */
import type { Executor } from "./client.ts";

export async function poolConnections(
  sql: Executor,
  applicationName: string,
): Promise<{ active: number; idle: number }> {
  const [row] = await sql<{ active: number; idle: number }[]>`
    SELECT count(*) FILTER (WHERE state <> 'idle')::int AS active,
           count(*) FILTER (WHERE state = 'idle')::int AS idle
      FROM pg_stat_activity
     WHERE application_name = ${applicationName}`;
  return row ?? { active: 0, idle: 0 };
}
