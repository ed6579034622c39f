/** blocked_visitors: visitor ids whose widget messages a workspace refuses. */
import type { Executor } from "./client.ts";

/** Block or unblock; true when that changed anything. */
export async function setVisitorBlocked(
  sql: Executor,
  workspaceId: number,
  visitorId: string,
  blocked: boolean,
  by: number,
  now: Date,
): Promise<boolean> {
  const rows = blocked
    ? await sql`
        INSERT INTO blocked_visitors (workspace_id, visitor_id, blocked_by, created_at)
        VALUES (${workspaceId}, ${visitorId}, ${by}, ${now})
        ON CONFLICT DO NOTHING RETURNING 1`
    : await sql`
        DELETE FROM blocked_visitors
         WHERE workspace_id = ${workspaceId} AND visitor_id = ${visitorId} RETURNING 1`;
  return rows.length > 0;
}

export async function isVisitorBlocked(
  sql: Executor,
  workspaceId: number,
  visitorId: string,
): Promise<boolean> {
  const rows = await sql`
    SELECT 1 FROM blocked_visitors
     WHERE workspace_id = ${workspaceId} AND visitor_id = ${visitorId}`;
  return rows.length > 0;
}
