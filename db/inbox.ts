/**
 * The agent inbox's reads: counts of every section in one statement, one page
 * of rows with everything a row shows in one statement (no per-row queries),
 * and rows by id for realtime updates. Unread is per agent: a conversation is
 * unread while its newest visitor message is past the agent's read marker.
 */
import type { Executor } from "./client.ts";
import { type ConversationStatus, type HandoffState, isUuid } from "./conversations.ts";

export type InboxFilter = "all" | "waiting" | "mine" | "team" | "ai" | "human" | "resolved";

export interface InboxCounts {
  all: number;
  ai: number;
  human: number;
  resolved: number;
  unread: number;
  waiting: number;
  mine: number;
  team: number;
  ai_group: number;
}

export interface InboxRowData {
  id: number;
  public_id: string;
  chatbot_id: number;
  chatbot: string;
  visitor_id: string;
  visitor_name: string | null;
  visitor_email: string | null;
  status: ConversationStatus;
  channel: string;
  handoff_state: HandoffState;
  handoff_requested_at: Date | null;
  resolution: string | null;
  last_message_at: Date;
  assigned_user_id: number | null;
  assigned_to: string | null;
  visitor_last_seen_at: Date | null;
  preview: string | null;
  unread: number;
  tags: { id: number; name: string; color: string }[];
  ai_failure: string | null;
}

/**
 * Every section's size: the open ones from the open set's covering index
 * (unread from `read_by`, no join), resolved from the trigger-kept counter
 * (migration 0021).
 */
export async function countInbox(
  sql: Executor,
  workspaceId: number,
  userId: number,
): Promise<InboxCounts> {
  const [row] = await sql<InboxCounts[]>`
    SELECT count(*)::int AS all,
      count(*) FILTER (WHERE c.status = 'bot')::int AS ai,
      count(*) FILTER (WHERE c.status = 'agent')::int AS human,
      count(*) FILTER (WHERE c.last_visitor_message_id IS NOT NULL
                         AND NOT (c.read_by @> ARRAY[${userId}::bigint]))::int AS unread,
      count(*) FILTER (WHERE c.status = 'bot' AND c.handoff_state = 'handoff_pending')::int
        AS waiting,
      count(*) FILTER (WHERE c.status = 'bot' AND c.handoff_state <> 'handoff_pending')::int
        AS ai_group,
      count(*) FILTER (WHERE c.status = 'agent' AND c.assigned_user_id = ${userId})::int AS mine,
      count(*) FILTER (WHERE c.status = 'agent' AND c.assigned_user_id IS DISTINCT FROM ${userId})::int
        AS team,
      COALESCE((SELECT w.closed FROM workspace_conversation_counts w
                 WHERE w.workspace_id = ${workspaceId}), 0) AS resolved
      FROM conversations c
     WHERE c.workspace_id = ${workspaceId} AND c.status <> 'closed'`;
  return row!;
}

function filterCondition(sql: Executor, filter: InboxFilter, userId: number) {
  switch (filter) {
    case "all":
      return sql`c.status <> 'closed'`;
    case "waiting":
      return sql`c.status = 'bot' AND c.handoff_state = 'handoff_pending'`;
    case "mine":
      return sql`c.status = 'agent' AND c.assigned_user_id = ${userId}`;
    case "team":
      return sql`c.status = 'agent' AND c.assigned_user_id IS DISTINCT FROM ${userId}`;
    case "ai":
      return sql`c.status = 'bot'`;
    case "human":
      return sql`c.status = 'agent'`;
    case "resolved":
      return sql`c.status = 'closed'`;
  }
}

/**
 * One section's rows, most recent activity first (the waiting section: who
 * has waited longest first). The page is chosen first, then each row's bot,
 * assignee, presence, read marker, last message and tags are joined to it.
 */
export async function pageInbox(
  sql: Executor,
  workspaceId: number,
  userId: number,
  filter: InboxFilter,
  limit: number,
): Promise<InboxRowData[]> {
  const order = filter === "waiting"
    ? sql`c.handoff_requested_at ASC NULLS LAST, c.id ASC`
    : sql`c.last_message_at DESC, c.id DESC`;
  return await sql<InboxRowData[]>`
    WITH page AS (
      SELECT c.* FROM conversations c
       WHERE c.workspace_id = ${workspaceId} AND ${filterCondition(sql, filter, userId)}
       ORDER BY ${order}
       LIMIT ${limit})
    ${rowSelect(sql, userId)}
     ORDER BY ${order}`;
}

/** Rows of the given conversations (realtime updates, a conversation just opened). */
export async function inboxRowsByIds(
  sql: Executor,
  workspaceId: number,
  userId: number | null,
  conversationIds: number[],
): Promise<InboxRowData[]> {
  if (conversationIds.length === 0) return [];
  return await sql<InboxRowData[]>`
    WITH page AS (
      SELECT c.* FROM conversations c
       WHERE c.workspace_id = ${workspaceId} AND c.id = ANY(${conversationIds}::bigint[]))
    ${rowSelect(sql, userId)}
     ORDER BY c.last_message_at DESC, c.id DESC`;
}

/** One conversation's row by its public id, in one statement (realtime events carry public ids). */
export async function inboxRowByPublicId(
  sql: Executor,
  workspaceId: number,
  userId: number | null,
  publicId: string,
): Promise<InboxRowData | null> {
  if (!isUuid(publicId)) return null;
  const [row] = await sql<InboxRowData[]>`
    WITH page AS (
      SELECT c.* FROM conversations c
       WHERE c.workspace_id = ${workspaceId} AND c.public_id = ${publicId})
    ${rowSelect(sql, userId)}`;
  return row ?? null;
}

/**
 * An agent's unread: the visitor messages past their read marker, a walk of
 * only what they have not read. With no viewer (a broadcast) every visitor
 * message is unread: the conversation's count (migration 0290), since a walk
 * of all its messages grew with the conversation on every event (issue 44).
 */
function unreadColumn(sql: Executor, userId: number | null) {
  if (userId === null) return sql`c.visitor_message_count AS unread`;
  return sql`
      CASE WHEN c.last_visitor_message_id > COALESCE(r.last_read_message_id, 0) THEN
        (SELECT count(*) FROM messages m
          WHERE m.conversation_id = c.id AND m.role = 'visitor'
            AND m.id > COALESCE(r.last_read_message_id, 0))::int
      ELSE 0 END AS unread`;
}

function rowSelect(sql: Executor, userId: number | null) {
  const reads = userId === null ? sql`` : sql`
      LEFT JOIN conversation_reads r ON r.user_id = ${userId} AND r.conversation_id = c.id`;
  return sql`
    SELECT c.id, c.public_id, c.chatbot_id, b.name AS chatbot, c.visitor_id, c.visitor_name,
      c.visitor_email, c.status, c.channel, c.handoff_state, c.handoff_requested_at,
      c.resolution, c.last_message_at, c.assigned_user_id, u.name AS assigned_to, c.ai_failure,
      v.last_seen_at AS visitor_last_seen_at, lm.preview, ${unreadColumn(sql, userId)},
      COALESCE((SELECT json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color)
                        ORDER BY t.name)
                  FROM conversation_tags ct JOIN tags t ON t.id = ct.tag_id
                 WHERE ct.conversation_id = c.id), '[]'::json) AS tags
      FROM page c
      JOIN chatbots b ON b.id = c.chatbot_id
      LEFT JOIN users u ON u.id = c.assigned_user_id
      LEFT JOIN visitors v ON v.chatbot_id = c.chatbot_id AND v.visitor_id = c.visitor_id${reads}
      LEFT JOIN LATERAL (
        SELECT left(m.content, 200) AS preview FROM messages m
         WHERE m.conversation_id = c.id ORDER BY m.id DESC LIMIT 1) lm ON true`;
}

/**
 * Mark everything up to the newest message read for this agent: the exact
 * marker, and the agent joins `read_by` unless a visitor message newer than
 * the marker arrived meanwhile. True when anything changed.
 */
export async function markConversationRead(
  sql: Executor,
  conversationId: number,
  userId: number,
  now: Date,
): Promise<boolean> {
  const [row] = await sql<{ joined: boolean }[]>`
    WITH mark AS (
      INSERT INTO conversation_reads AS r (conversation_id, user_id, last_read_message_id, read_at)
      SELECT ${conversationId}, ${userId}, COALESCE(max(m.id), 0), ${now}
        FROM messages m WHERE m.conversation_id = ${conversationId}
      ON CONFLICT (user_id, conversation_id) DO UPDATE
         SET last_read_message_id = GREATEST(r.last_read_message_id, EXCLUDED.last_read_message_id),
             read_at = EXCLUDED.read_at
      RETURNING last_read_message_id),
    joined AS (
      UPDATE conversations c SET read_by = array_append(c.read_by, ${userId}::bigint)
        FROM mark
       WHERE c.id = ${conversationId} AND NOT (c.read_by @> ARRAY[${userId}::bigint])
         AND COALESCE(c.last_visitor_message_id, 0) <= mark.last_read_message_id
      RETURNING 1)
    SELECT EXISTS (SELECT 1 FROM joined) AS joined`;
  return row?.joined ?? false;
}
