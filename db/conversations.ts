/** conversations: one visitor thread with a bot, scoped by workspace. */
import type { Executor } from "./client.ts";

export type ConversationStatus = "bot" | "agent" | "closed";
export type HandoffState = "bot_active" | "handoff_pending" | "human_connected";

export interface ConversationRow {
  id: number;
  public_id: string;
  workspace_id: number;
  chatbot_id: number;
  visitor_id: string;
  channel: string;
  status: ConversationStatus;
  handoff_state: HandoffState;
  handoff_requested_at: Date | null;
  resolution: string | null;
  resolved_at: Date | null;
  resolved_by_ai: boolean;
  assigned_user_id: number | null;
  meta: Record<string, unknown>;
  visitor_name: string | null;
  visitor_email: string | null;
  visitor_phone: string | null;
  rating: number | null;
  rating_comment: string | null;
  last_message_at: Date;
  created_at: Date;
  last_visitor_message_id: number | null;
  /** Its visitor messages, kept by the statements that store them (migration 0290). */
  visitor_message_count: number;
  /** Agents who have read up to the last visitor message (migration 0021). */
  read_by: number[];
  /** How the conversation reached its assignee (takeover, agentReply, assign, invite). */
  routed_by: string | null;
  /** Why the AI could not answer, while a human is needed for it (migration 0125). */
  ai_failure: string | null;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a string can be compared with a uuid column without a cast error. */
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

export async function findConversationByPublicId(
  sql: Executor,
  workspaceId: number,
  publicId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<ConversationRow | null> {
  if (!isUuid(publicId)) return null;
  const lock = opts.forUpdate ? sql`FOR UPDATE` : sql``;
  const [row] = await sql<ConversationRow[]>`
    SELECT * FROM conversations
     WHERE workspace_id = ${workspaceId} AND public_id = ${publicId} ${lock}`;
  return row ?? null;
}

/** What a conversation's realtime channels are authorised on: its workspace and its bot's screen flag. */
export interface ConversationChannelFacts {
  public_id: string;
  workspace_id: number;
  /** The bot's branding `screen_share` (off unless stored as true). */
  screen_share: boolean;
}

/**
 * The facts of these conversations (missing ones are left out). Not
 * workspace-scoped: the realtime server re-checks the conversation and
 * screen channels every instance holds in one query, and compares the
 * workspace itself.
 */
export async function conversationChannelFacts(
  sql: Executor,
  publicIds: string[],
): Promise<ConversationChannelFacts[]> {
  const ids = publicIds.filter(isUuid);
  if (ids.length === 0) return [];
  return await sql<ConversationChannelFacts[]>`
    SELECT c.public_id::text AS public_id, c.workspace_id::int AS workspace_id,
           coalesce(b.branding->>'screen_share' = 'true', false) AS screen_share
      FROM conversations c JOIN chatbots b ON b.id = c.chatbot_id
     WHERE c.public_id = ANY(${ids}::uuid[])`;
}

export async function findConversationById(
  sql: Executor,
  workspaceId: number,
  id: number,
): Promise<ConversationRow | null> {
  const [row] = await sql<ConversationRow[]>`
    SELECT * FROM conversations WHERE workspace_id = ${workspaceId} AND id = ${id}`;
  return row ?? null;
}

export interface NewConversation {
  chatbotId: number;
  visitorId: string;
  channel: string;
  meta: Record<string, unknown>;
  visitorName?: string | null;
  visitorEmail?: string | null;
  visitorPhone?: string | null;
  now: Date;
}

/** Columns a state transition or a visitor turn may change. */
export interface ConversationPatch {
  status?: ConversationStatus;
  handoff_state?: HandoffState;
  handoff_requested_at?: Date | null;
  resolution?: string | null;
  resolved_at?: Date | null;
  resolved_by_ai?: boolean;
  assigned_user_id?: number | null;
  meta?: Record<string, unknown>;
  visitor_name?: string | null;
  visitor_email?: string | null;
  visitor_phone?: string | null;
  last_message_at?: Date;
  routed_by?: string | null;
  ai_failure?: string | null;
}

const PATCHABLE: (keyof ConversationPatch)[] = [
  "status",
  "handoff_state",
  "handoff_requested_at",
  "resolution",
  "resolved_at",
  "resolved_by_ai",
  "assigned_user_id",
  "meta",
  "visitor_name",
  "visitor_email",
  "visitor_phone",
  "last_message_at",
  "routed_by",
  "ai_failure",
];

export async function updateConversation(
  sql: Executor,
  workspaceId: number,
  id: number,
  patch: ConversationPatch,
): Promise<ConversationRow> {
  const values: Record<string, unknown> = {};
  for (const key of PATCHABLE) {
    if (patch[key] === undefined) continue;
    values[key] = key === "meta" ? sql.json(patch.meta as never) : patch[key];
  }
  if (Object.keys(values).length === 0) {
    return (await findConversationById(sql, workspaceId, id))!;
  }
  // A new handoff request: the reports' first response is the first human message at or after
  // it (migration 0280), normally none yet; one index probe, on a request only.
  const firstResponse = patch.handoff_requested_at === undefined ? sql`` : sql`,
    first_response_at = (SELECT min(m.created_at) FROM messages m
                          WHERE m.conversation_id = conversations.id AND m.role = 'agent'
                            AND m.created_at >= ${patch.handoff_requested_at}::timestamptz)`;
  const [row] = await sql<ConversationRow[]>`
    UPDATE conversations SET ${sql(values as Record<string, never>)}${firstResponse}
     WHERE workspace_id = ${workspaceId} AND id = ${id}
    RETURNING *`;
  return row!;
}

export interface ConversationListItem {
  id: number;
  public_id: string;
  status: ConversationStatus;
  visitor_id: string;
  last_message_at: Date;
}

/** One page of a bot's conversations, most recent activity first, plus the total. */
export async function pageBotConversations(
  sql: Executor,
  workspaceId: number,
  chatbotId: number,
  page: { limit: number; offset: number },
): Promise<{ rows: ConversationListItem[]; total: number }> {
  const [count] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM conversations
     WHERE workspace_id = ${workspaceId} AND chatbot_id = ${chatbotId}`;
  const rows = await sql<ConversationListItem[]>`
    SELECT id, public_id, status, visitor_id, last_message_at FROM conversations
     WHERE workspace_id = ${workspaceId} AND chatbot_id = ${chatbotId}
     ORDER BY last_message_at DESC, id DESC
     LIMIT ${page.limit} OFFSET ${page.offset}`;
  return { rows, total: count?.n ?? 0 };
}
