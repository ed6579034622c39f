/**
 * Retention's statements (domain/retention/run_retention.ts): which
 * workspaces keep data for a limited time, the next batch of their resolved
 * conversations older than the limit (locked SKIP LOCKED, so an agent's
 * action on one never waits for retention, nor retention for it), and the
 * next batch of visitors left with no conversation.
 */
import type { Executor } from "./client.ts";
import type { ContactScope } from "./contact_scope.ts";

export interface RetainingWorkspace {
  id: number;
  retention_days: number;
}

export async function retainingWorkspaces(sql: Executor): Promise<RetainingWorkspace[]> {
  return (await sql<RetainingWorkspace[]>`
    SELECT id, retention_days FROM workspaces WHERE retention_days IS NOT NULL ORDER BY id`)
    .map((r) => ({ id: Number(r.id), retention_days: r.retention_days }));
}

/** Up to `limit` resolved conversations quiet since before `cutoff`, locked for deletion. */
export async function expiredConversations(
  sql: Executor,
  workspaceId: number,
  cutoff: Date,
  limit: number,
): Promise<ContactScope> {
  const rows = await sql<
    { id: number; public_id: string; chatbot_id: number; visitor_id: string }[]
  >`
    SELECT id, public_id::text, chatbot_id, visitor_id FROM conversations
     WHERE workspace_id = ${workspaceId} AND status = 'closed' AND last_message_at < ${cutoff}
     ORDER BY last_message_at DESC, id DESC
     LIMIT ${limit}
     FOR UPDATE SKIP LOCKED`;
  const visitors = new Map<string, { chatbot_id: number; visitor_id: string }>();
  for (const r of rows) {
    visitors.set(`${r.chatbot_id} ${r.visitor_id}`, {
      chatbot_id: Number(r.chatbot_id),
      visitor_id: r.visitor_id,
    });
  }
  return {
    conversationIds: rows.map((r) => Number(r.id)),
    publicIds: rows.map((r) => r.public_id),
    visitors: [...visitors.values()],
  };
}

/** Delete up to `limit` visitors last seen before `cutoff` who have no conversation. */
export async function deleteIdleVisitors(
  sql: Executor,
  workspaceId: number,
  cutoff: Date,
  limit: number,
): Promise<number> {
  const rows = await sql`
    DELETE FROM visitors x USING (
      SELECT v.chatbot_id, v.visitor_id FROM visitors v
       WHERE v.workspace_id = ${workspaceId} AND v.last_seen_at < ${cutoff}
         AND NOT EXISTS (SELECT 1 FROM conversations c
                          WHERE c.chatbot_id = v.chatbot_id AND c.visitor_id = v.visitor_id)
       LIMIT ${limit}
       FOR UPDATE SKIP LOCKED) d
     WHERE x.chatbot_id = d.chatbot_id AND x.visitor_id = d.visitor_id
    RETURNING 1`;
  return rows.length;
}

export async function readRetentionDays(
  sql: Executor,
  workspaceId: number,
): Promise<number | null> {
  const [row] = await sql<{ retention_days: number | null }[]>`
    SELECT retention_days FROM workspaces WHERE id = ${workspaceId}`;
  return row?.retention_days ?? null;
}

export async function writeRetentionDays(
  sql: Executor,
  workspaceId: number,
  days: number | null,
): Promise<void> {
  await sql`UPDATE workspaces SET retention_days = ${days} WHERE id = ${workspaceId}`;
}
