/** What a webhook payload shows of a conversation: one query by its public id. */
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

export async function webhookConversation(
  sql: Executor,
  workspaceId: number,
  publicId: string,
): Promise<WebhookConversationRow | null> {
  if (!isUuid(publicId)) return null;
  const [row] = await sql<WebhookConversationRow[]>`
    SELECT c.public_id, b.public_key AS chatbot_key, c.channel, c.status, c.handoff_state,
           c.visitor_id, c.visitor_name, c.visitor_email, c.visitor_phone, c.assigned_user_id,
           u.name AS assigned_user_name, c.rating, c.rating_comment, c.handoff_requested_at,
           c.resolved_at, c.created_at, c.last_message_at
      FROM conversations c JOIN chatbots b ON b.id = c.chatbot_id
      LEFT JOIN users u ON u.id = c.assigned_user_id
     WHERE c.workspace_id = ${workspaceId} AND c.public_id = ${publicId}`;
  return row ?? null;
}
