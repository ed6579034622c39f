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

export interface FirstTurn {
  conversation: ConversationRow;
  visitorMessage: MessageRow;
}

/** Null when the plan's monthly limit refuses the message (nothing is written). */
export async function insertFirstTurn(
  sql: Executor,
  workspaceId: number,
  c: NewConversation & { content: string; month: string; clientId?: string | null },
): Promise<FirstTurn | null> {
  const [row] = await sql<(ConversationRow & { m_id: number; m_created_at: Date })[]>`
    WITH ${quotaCtes(sql, workspaceId, c.month)},
    mid AS (SELECT nextval('messages_id_seq') AS id),
    conv AS (
      INSERT INTO conversations (workspace_id, chatbot_id, visitor_id, channel, meta,
        visitor_name, visitor_email, visitor_phone, last_message_at, created_at,
        last_visitor_message_id)
      SELECT ${workspaceId}, ${c.chatbotId}, ${c.visitorId}, ${c.channel},
        ${sql.json(c.meta as never)}, ${c.visitorName ?? null}, ${c.visitorEmail ?? null},
        ${c.visitorPhone ?? null}, ${c.now}, ${c.now}, mid.id
        FROM quota, mid
      RETURNING *),
    msg AS (
      INSERT INTO messages (id, workspace_id, conversation_id, role, content, client_id,
        created_at)
      SELECT conv.last_visitor_message_id, ${workspaceId}, conv.id, 'visitor', ${c.content},
        ${c.clientId ?? null}, ${c.now} FROM conv
      RETURNING id, created_at)
    SELECT conv.*, msg.id AS m_id, msg.created_at AS m_created_at FROM conv, msg`;
  if (!row) return null;
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
