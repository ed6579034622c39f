/** messages: the turns of a conversation (visitor, AI assistant, human agent). */
import type postgres from "postgres";
import type { Executor } from "./client.ts";
import { isUuid } from "./conversations.ts";

export type MessageRole = "visitor" | "assistant" | "agent";

export interface MessageSource {
  title: string;
  url: string | null;
}

export interface MessageRow {
  id: number;
  workspace_id: number;
  conversation_id: number;
  role: MessageRole;
  content: string;
  model: string | null;
  tokens_in: number;
  tokens_out: number;
  cost_micro_cents: number;
  sources: MessageSource[];
  author_user_id: number | null;
  client_id: string | null;
  delivered_at: Date | null;
  created_at: Date;
}

export interface NewMessage {
  conversationId: number;
  role: MessageRole;
  content: string;
  model?: string | null;
  tokensIn?: number;
  tokensOut?: number;
  costMicroCents?: number;
  sources?: MessageSource[];
  authorUserId?: number | null;
  clientId?: string | null;
  now: Date;
}

/** The columns every message insert writes after its ids, in `messageValues`' order. */
function messageFields(sql: Executor) {
  return sql`role, content, model, tokens_in, tokens_out, cost_micro_cents, sources,
    author_user_id, client_id, created_at`;
}

function messageValues(sql: Executor, m: Omit<NewMessage, "conversationId">) {
  return sql`${m.role}, ${m.content}, ${m.model ?? null}, ${m.tokensIn ?? 0}, ${m.tokensOut ?? 0},
    ${m.costMicroCents ?? 0}, ${sql.json((m.sources ?? []) as never)}, ${m.authorUserId ?? null},
    ${m.clientId ?? null}, ${m.now}`;
}

/**
 * An agent's message also keeps its conversation's reply facts for the
 * reports (migration 0280): its first human message, and the first at or
 * after the latest handoff request. LEAST keeps the earliest (a retried
 * message carries a later time). The AI's message notes that the AI has
 * replied (migration 0295: the report's AI resolutions read it), in the
 * same UPDATE: no statement and no index entry is added to the visitor's path.
 */
function replyFacts(sql: Executor, m: Pick<NewMessage, "role" | "now">) {
  if (m.role === "assistant") return sql`, ai_replied = true`;
  if (m.role !== "agent") return sql``;
  return sql`, first_human_reply_at = LEAST(first_human_reply_at, ${m.now}::timestamptz),
    first_response_at = CASE WHEN handoff_requested_at <= ${m.now}::timestamptz
                             THEN LEAST(first_response_at, ${m.now}::timestamptz)
                             ELSE first_response_at END`;
}

export async function insertMessage(
  sql: Executor,
  workspaceId: number,
  m: NewMessage,
): Promise<MessageRow> {
  const [row] = await sql<MessageRow[]>`
    INSERT INTO messages (workspace_id, conversation_id, ${messageFields(sql)})
    VALUES (${workspaceId}, ${m.conversationId}, ${messageValues(sql, m)})
    RETURNING *`;
  return row!;
}

/** Every message of a conversation, oldest first. */
export async function listMessages(
  sql: Executor,
  workspaceId: number,
  conversationId: number,
): Promise<MessageRow[]> {
  return await sql<MessageRow[]>`
    SELECT * FROM messages
     WHERE workspace_id = ${workspaceId} AND conversation_id = ${conversationId}
     ORDER BY id`;
}

/** The latest `limit` messages before (and excluding) `beforeId`, oldest first. */
export async function recentMessages(
  sql: Executor,
  workspaceId: number,
  conversationId: number,
  beforeId: number,
  limit: number,
): Promise<MessageRow[]> {
  const rows = await sql<MessageRow[]>`
    SELECT * FROM messages
     WHERE workspace_id = ${workspaceId} AND conversation_id = ${conversationId}
       AND id < ${beforeId}
     ORDER BY id DESC LIMIT ${limit}`;
  return rows.reverse();
}

/**
 * Store a message and bump its conversation's `last_message_at` in one
 * statement (atomic without a transaction round trip). With `onlyIfAiMayAnswer`
 * nothing is written, and null returned, when a human owns the conversation.
 */
export async function appendMessage(
  sql: Executor,
  workspaceId: number,
  m: NewMessage,
  opts: { onlyIfAiMayAnswer?: boolean } = {},
): Promise<MessageRow | null> {
  const [row] = await appendMessageStatement(sql, workspaceId, m, opts);
  return row ?? null;
}

/**
 * `appendMessage`'s statement, not yet sent: for a pipelined transaction's
 * `commitWith` (db/pipelined_transaction.ts). Its rows: the message, or none.
 */
export function appendMessageStatement(
  sql: Executor,
  workspaceId: number,
  m: NewMessage,
  opts: { onlyIfAiMayAnswer?: boolean } = {},
): postgres.PendingQuery<MessageRow[]> {
  const guard = opts.onlyIfAiMayAnswer
    ? sql`AND status <> 'agent' AND handoff_state <> 'human_connected'`
    : sql``;
  // A visitor message's id is drawn first so the conversation row can point
  // at it in the same statement, which also makes it unread for every agent
  // and counts it (migration 0290: the broadcast's `unread` reads the count).
  const visitorMark = m.role === "visitor"
    ? sql`, last_visitor_message_id = (SELECT id FROM mid), read_by = '{}',
        visitor_message_count = visitor_message_count + 1`
    : sql``;
  return sql<MessageRow[]>`
    WITH mid AS (SELECT nextval('messages_id_seq') AS id),
    c AS (
      UPDATE conversations SET last_message_at = ${m.now} ${visitorMark}${replyFacts(sql, m)}
       WHERE workspace_id = ${workspaceId} AND id = ${m.conversationId} ${guard}
      RETURNING id)
    INSERT INTO messages (id, workspace_id, conversation_id, ${messageFields(sql)})
    SELECT (SELECT id FROM mid), ${workspaceId}, c.id, ${messageValues(sql, m)}
      FROM c
    RETURNING *`;
}

/** Column values a conversation must still have for `appendMessageWhile` to write. */
export type ConversationCondition = Record<string, string | number | null>;

/**
 * One statement, no transaction: stores `m` in the conversation (by public
 * id) and bumps its `last_message_at`, only while the conversation has every
 * value in `expected`, counts `readerUserId` among its readers (`read_by`),
 * and has no message with `m.clientId` yet. Null, with nothing written,
 * otherwise. The UPDATE's row lock orders it after any transaction holding
 * the conversation, and the condition is checked again on the row it finally
 * locks; a `client_id` stored meanwhile loses on the unique index.
 */
export async function appendMessageWhile(
  sql: Executor,
  workspaceId: number,
  conversationPublicId: string,
  expected: ConversationCondition,
  readerUserId: number,
  m: Omit<NewMessage, "conversationId">,
): Promise<{ message: MessageRow; conversationPublicId: string } | null> {
  if (!isUuid(conversationPublicId)) return null;
  const condition = Object.entries(expected)
    .map(([column, value]) =>
      value === null ? sql`${sql(column)} IS NULL` : sql`${sql(column)} = ${value}`
    )
    .reduce((all, one) => sql`${all} AND ${one}`);
  const newClientId = m.clientId
    ? sql`AND NOT EXISTS (SELECT 1 FROM messages x
           WHERE x.conversation_id = conversations.id AND x.client_id = ${m.clientId})`
    : sql``;
  const [row] = await sql<(MessageRow & { conversation_public_id: string })[]>`
    WITH c AS (
      UPDATE conversations SET last_message_at = ${m.now}${replyFacts(sql, m)}
       WHERE workspace_id = ${workspaceId} AND public_id = ${conversationPublicId}
         AND ${condition} AND read_by @> ARRAY[${readerUserId}::bigint] ${newClientId}
      RETURNING id, public_id)
    INSERT INTO messages (workspace_id, conversation_id, ${messageFields(sql)})
    SELECT ${workspaceId}, c.id, ${messageValues(sql, m)}
      FROM c
    ON CONFLICT (conversation_id, client_id) WHERE client_id IS NOT NULL DO NOTHING
    RETURNING *, (SELECT public_id FROM c) AS conversation_public_id`;
  if (!row) return null;
  const { conversation_public_id, ...message } = row;
  return { message, conversationPublicId: conversation_public_id };
}

/** The message an agent app already sent with this `client_id`, if any (retries). */
export async function findMessageByClientId(
  sql: Executor,
  workspaceId: number,
  conversationId: number,
  clientId: string,
): Promise<MessageRow | null> {
  const [row] = await sql<MessageRow[]>`
    SELECT * FROM messages
     WHERE workspace_id = ${workspaceId} AND conversation_id = ${conversationId}
       AND client_id = ${clientId}`;
  return row ?? null;
}

/**
 * Whether `err` is the unique violation of a visitor idempotency key: a
 * concurrent request stored the same key first (nothing of this one was written).
 */
export function isVisitorKeyTaken(err: unknown): boolean {
  const e = err as { code?: unknown; constraint_name?: unknown } | null;
  return e?.code === "23505" && e.constraint_name === "messages_visitor_key_idx";
}

/**
 * The `client_id` of the AI reply to the visitor message keyed `clientKey`:
 * the per-conversation unique index then keeps one stored reply per key.
 */
export function replyClientId(clientKey: string): string {
  return `reply:${clientKey}`;
}

/** The visitor message stored under an idempotency key in the workspace, if any. */
export async function findVisitorMessageByKey(
  sql: Executor,
  workspaceId: number,
  clientKey: string,
): Promise<MessageRow | null> {
  const [row] = await sql<MessageRow[]>`
    SELECT * FROM messages
     WHERE workspace_id = ${workspaceId} AND role = 'visitor' AND client_id = ${clientKey}`;
  return row ?? null;
}
