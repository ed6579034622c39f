/**
 * What a webhook payload shows of a conversation. The recording statement
 * (db/webhook_deliveries.ts `recordEvent`) captures it as JSON on the event
 * row, so the body describes the conversation as it was when the event was
 * recorded; the live read is for events recorded without it (before
 * migration 0200, or by an instance still on the previous version).
 */
import type postgres from "postgres";
import type { Executor } from "./client.ts";
import { isUuid } from "./conversations.ts";

export interface WebhookConversationRow {
  public_id: string;
  chatbot_key: string;
  channel: string;
  status: string;
  handoff_state: string;
  visitor_id: string;
  visitor_name: string | null;
  visitor_email: string | null;
  visitor_phone: string | null;
  assigned_user_id: number | null;
  assigned_user_name: string | null;
  rating: number | null;
  rating_comment: string | null;
  handoff_requested_at: Date | null;
  resolved_at: Date | null;
  created_at: Date;
  last_message_at: Date;
}

/** The one SELECT both the snapshot and the live read run: one row, found by its public id. */
function conversationQuery(
  sql: Executor,
  workspaceId: number,
  publicId: string,
): postgres.PendingQuery<WebhookConversationRow[]> {
  return sql<WebhookConversationRow[]>`
    SELECT c.public_id, b.public_key AS chatbot_key, c.channel, c.status, c.handoff_state,
           c.visitor_id, c.visitor_name, c.visitor_email, c.visitor_phone, c.assigned_user_id,
           u.name AS assigned_user_name, c.rating, c.rating_comment, c.handoff_requested_at,
           c.resolved_at, c.created_at, c.last_message_at
      FROM conversations c JOIN chatbots b ON b.id = c.chatbot_id
      LEFT JOIN users u ON u.id = c.assigned_user_id
     WHERE c.workspace_id = ${workspaceId} AND c.public_id = ${publicId}`;
}

/**
 * A scalar subquery for the recording statement: the conversation as this
 * statement sees it (inside an action's transaction, with the action's own
 * change), as jsonb; NULL without a conversation.
 */
export function conversationSnapshot(
  sql: Executor,
  workspaceId: number,
  publicId: string | null,
): postgres.PendingQuery<postgres.Row[]> {
  if (publicId === null || !isUuid(publicId)) return sql`NULL::jsonb`;
  return sql`(SELECT to_jsonb(s) FROM (${conversationQuery(sql, workspaceId, publicId)}) s)`;
}

/** A snapshot read back (its timestamps are ISO strings in JSON) as the row it was taken from. */
export function snapshotRow(json: Record<string, unknown>): WebhookConversationRow {
  const at = (v: unknown) => (typeof v === "string" ? new Date(v) : null);
  const row = json as unknown as WebhookConversationRow;
  return {
    ...row,
    handoff_requested_at: at(json.handoff_requested_at),
    resolved_at: at(json.resolved_at),
    created_at: at(json.created_at)!,
    last_message_at: at(json.last_message_at)!,
  };
}

/** The conversation as it is now: for an event recorded without a snapshot. */
export async function webhookConversation(
  sql: Executor,
  workspaceId: number,
  publicId: string,
): Promise<WebhookConversationRow | null> {
  if (!isUuid(publicId)) return null;
  const [row] = await conversationQuery(sql, workspaceId, publicId);
  return row ?? null;
}
