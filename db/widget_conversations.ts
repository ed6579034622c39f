/**
 * Visitor-scoped conversation queries for the public widget: every lookup
 * is bounded by workspace, bot and visitor id, so a guessed conversation id
 * of another visitor is simply not found.
 */
import type { Executor } from "./client.ts";
import type { ConversationRow } from "./conversations.ts";

/** One message as the widget shows it. */
export interface WidgetMessageRow {
  id: number;
  role: "visitor" | "assistant" | "agent";
  content: string;
  created_at: Date;
}

/** This visitor's conversation with this bot, by public id; null when not theirs. */
export async function findVisitorConversation(
  sql: Executor,
  workspaceId: number,
  chatbotId: number,
  visitorId: string,
  publicId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<ConversationRow | null> {
  const lock = opts.forUpdate ? sql`FOR UPDATE` : sql``;
  const [row] = await sql<ConversationRow[]>`
    SELECT * FROM conversations
     WHERE workspace_id = ${workspaceId} AND chatbot_id = ${chatbotId}
       AND visitor_id = ${visitorId} AND public_id = ${publicId} ${lock}`;
  return row ?? null;
}

/** The visitor's most recently active open conversation with this bot, or null. */
export async function findLatestOpenConversation(
  sql: Executor,
  workspaceId: number,
  chatbotId: number,
  visitorId: string,
): Promise<ConversationRow | null> {
  const [row] = await sql<ConversationRow[]>`
    SELECT * FROM conversations
     WHERE workspace_id = ${workspaceId} AND chatbot_id = ${chatbotId}
       AND visitor_id = ${visitorId} AND status <> 'closed'
     ORDER BY last_message_at DESC, id DESC
     LIMIT 1`;
  return row ?? null;
}

/** The last `limit` messages of a conversation, oldest first. */
export async function listRecentMessages(
  sql: Executor,
  workspaceId: number,
  conversationId: number,
  limit: number,
): Promise<WidgetMessageRow[]> {
  return await sql<WidgetMessageRow[]>`
    SELECT * FROM (
      SELECT id, role, content, created_at FROM messages
       WHERE workspace_id = ${workspaceId} AND conversation_id = ${conversationId}
       ORDER BY id DESC LIMIT ${limit}
    ) recent ORDER BY id`;
}

/**
 * Mark the agent messages not yet delivered to the visitor as delivered and
 * return them, oldest first. One statement, so two concurrent heartbeats
 * never both deliver the same message.
 */
export async function takeUndeliveredAgentMessages(
  sql: Executor,
  workspaceId: number,
  conversationId: number,
  now: Date,
): Promise<WidgetMessageRow[]> {
  const rows = await sql<WidgetMessageRow[]>`
    UPDATE messages SET delivered_at = ${now}
     WHERE id IN (
       SELECT id FROM messages
        WHERE workspace_id = ${workspaceId} AND conversation_id = ${conversationId}
          AND role = 'agent' AND delivered_at IS NULL
        ORDER BY id
        FOR UPDATE SKIP LOCKED)
     RETURNING id, role, content, created_at`;
  return rows.sort((a, b) => a.id - b.id);
}

/** Store (or overwrite) the visitor's rating of a conversation, and when it was given. */
export async function setConversationRating(
  sql: Executor,
  workspaceId: number,
  conversationId: number,
  rating: number,
  comment: string | null,
  now: Date,
): Promise<void> {
  await sql`
    UPDATE conversations SET rating = ${rating}, rating_comment = ${comment}, rated_at = ${now}
     WHERE workspace_id = ${workspaceId} AND id = ${conversationId}`;
}
