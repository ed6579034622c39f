/**
 * Ownership on the widget: a conversation is reachable only with the
 * `visitor_id` that opened it, on the bot it belongs to. Anything else is the
 * same 404 as a conversation that does not exist.
 */
import type { Executor } from "../../db/client.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import { type ConversationRow, isUuid } from "../../db/conversations.ts";
import {
  findLatestOpenConversation,
  findVisitorConversation,
} from "../../db/widget_conversations.ts";
import { NotFound } from "../errors.ts";

export const CONVERSATION_NOT_FOUND = "No conversation with that id for this visitor.";

/** The visitor's conversation by public id, or NotFound. */
export async function requireVisitorConversation(
  sql: Executor,
  bot: ChatbotRow,
  visitorId: string,
  publicId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<ConversationRow> {
  const row = isUuid(publicId)
    ? await findVisitorConversation(sql, bot.workspace_id, bot.id, visitorId, publicId, opts)
    : null;
  if (!row) throw new NotFound(CONVERSATION_NOT_FOUND);
  return row;
}

/** The given conversation when it is the visitor's, else their latest open one, else null. */
export async function currentVisitorConversation(
  sql: Executor,
  bot: ChatbotRow,
  visitorId: string,
  publicId: string | undefined,
): Promise<ConversationRow | null> {
  if (publicId !== undefined) {
    return await requireVisitorConversation(sql, bot, visitorId, publicId);
  }
  return await findLatestOpenConversation(sql, bot.workspace_id, bot.id, visitorId);
}
