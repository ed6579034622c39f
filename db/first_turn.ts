/**
 * A new conversation's first visitor turn as one statement: take a unit of
 * the monthly quota, open the conversation and store the message. One
 * statement is atomic without BEGIN/COMMIT round trips, which on the widget's
 * first message were a third of the time to the first token
 * (docs/BENCHMARKS.md). A refused quota inserts nothing.
 */
import type { Executor } from "./client.ts";
import type { ConversationRow, NewConversation } from "./conversations.ts";
import type { MessageRow } from "./messages.ts";
import { quotaCtes } from "./usage.ts";
import { REPLY_VERSION } from "./chatbots.ts";

export interface FirstTurn {
  conversation: ConversationRow;
  visitorMessage: MessageRow;
}

/** Null when the plan's monthly limit refuses the message (nothing is written). */
export async function insertFirstTurn(
  sql: Executor,
  workspaceId: number,
  c: FirstTurnInput,
): Promise<FirstTurn | null> {
  const [row] = await sql<FirstTurnRow[]>`
    WITH ${quotaCtes(sql, workspaceId, c.month)},
    ${turnCtes(sql, workspaceId, c)}
    SELECT conv.*, msg.id AS m_id, msg.created_at AS m_created_at FROM conv, msg`;
  return row ? firstTurnOf(row, workspaceId, c) : null;
}

/** A first turn stored for a bot known from a kept copy, with what the bot is now. */
export interface KnownBotFirstTurn extends FirstTurn {
  /** The bot's `replyVersion` as the statement saw it (db/chatbots.ts). */
  replyVersion: string;
  /** Messages left this month after this one; null when unlimited. */
  quotaHeadroom: number | null;
}

/**
 * The first turn for a widget bot the caller knows from an earlier lookup
 * (domain/widget/known_bots.ts), without looking it up again first: the same
 * statement checks what the lookup would have (the key still names this
 * active bot of an active workspace, the visitor is not blocked, the
 * idempotency key is not stored yet) and takes the quota only then. Null when
 * any check or the quota refuses: nothing is written, and the caller asks the
 * full way, which says which one refused.
 */
export async function insertKnownBotFirstTurn(
  sql: Executor,
  workspaceId: number,
  c: FirstTurnInput & { publicKey: string },
): Promise<KnownBotFirstTurn | null> {
  const known = sql`
    known AS (
      SELECT ${sql.unsafe(REPLY_VERSION)} AS reply_version
        FROM chatbots b JOIN workspaces w ON w.id = b.workspace_id
        LEFT JOIN provider_keys pk ON pk.workspace_id = b.workspace_id AND pk.provider = b.provider
       WHERE b.id = ${c.chatbotId} AND b.workspace_id = ${workspaceId}
         AND b.public_key = ${c.publicKey} AND b.is_active AND NOT w.suspended
         AND NOT EXISTS (SELECT 1 FROM blocked_visitors bv
               WHERE bv.workspace_id = ${workspaceId} AND bv.visitor_id = ${c.visitorId})
         AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.workspace_id = ${workspaceId}
               AND m.role = 'visitor' AND m.client_id = ${c.clientId ?? null}))`;
  const [row] = await sql<(FirstTurnRow & { reply_version: string; headroom: number | null })[]>`
    WITH ${known}, ${quotaCtes(sql, workspaceId, c.month, sql`known`)},
    ${turnCtes(sql, workspaceId, c)}
    SELECT conv.*, msg.id AS m_id, msg.created_at AS m_created_at, known.reply_version,
           (SELECT lim.l FROM lim) - (SELECT used FROM quota) AS headroom
      FROM conv, msg, known`;
  if (!row) return null;
  const { reply_version, headroom, ...rest } = row;
  return {
    ...firstTurnOf(rest, workspaceId, c),
    replyVersion: reply_version,
    quotaHeadroom: headroom,
  };
}

type FirstTurnInput = NewConversation & {
  content: string;
  month: string;
  clientId?: string | null;
};
type FirstTurnRow = ConversationRow & { m_id: number; m_created_at: Date };

/** Open the conversation and store its first message, once `quota` has a row. */
function turnCtes(sql: Executor, workspaceId: number, c: FirstTurnInput) {
  return sql`
    mid AS (SELECT nextval('messages_id_seq') AS id),
    conv AS (
      INSERT INTO conversations (workspace_id, chatbot_id, visitor_id, channel, meta,
        visitor_name, visitor_email, visitor_phone, last_message_at, created_at,
        last_visitor_message_id, visitor_message_count)
      SELECT ${workspaceId}, ${c.chatbotId}, ${c.visitorId}, ${c.channel},
        ${sql.json(c.meta as never)}, ${c.visitorName ?? null}, ${c.visitorEmail ?? null},
        ${c.visitorPhone ?? null}, ${c.now}, ${c.now}, mid.id, 1
        FROM quota, mid
      RETURNING *),
    msg AS (
      INSERT INTO messages (id, workspace_id, conversation_id, role, content, client_id,
        created_at)
      SELECT conv.last_visitor_message_id, ${workspaceId}, conv.id, 'visitor', ${c.content},
        ${c.clientId ?? null}, ${c.now} FROM conv
      RETURNING id, created_at)`;
}

function firstTurnOf(row: FirstTurnRow, workspaceId: number, c: FirstTurnInput): FirstTurn {
  const { m_id, m_created_at, ...conversation } = row;
  return {
    conversation,
    // The message's other columns are what this statement wrote or their defaults.
    visitorMessage: {
      id: m_id,
      workspace_id: workspaceId,
      conversation_id: conversation.id,
      role: "visitor",
      content: c.content,
      model: null,
      tokens_in: 0,
      tokens_out: 0,
      cost_micro_cents: 0,
      sources: [],
      author_user_id: null,
      client_id: c.clientId ?? null,
      delivered_at: null,
      created_at: m_created_at,
    },
  };
}
