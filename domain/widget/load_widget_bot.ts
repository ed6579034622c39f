/**
 * The bot behind a public widget key. An unknown key, an inactive bot and a
 * suspended workspace all answer the same 404, so the widget reveals nothing.
 */
import type { Executor } from "../../db/client.ts";
import {
  type ChatbotForReply,
  type ChatbotRow,
  findActiveChatbotByPublicKey,
  findActiveChatbotForReply,
} from "../../db/chatbots.ts";
import { quotaMonth } from "../usage/quota_month.ts";
import { Forbidden, NotFound } from "../errors.ts";

export async function loadWidgetBot(sql: Executor, publicKey: string): Promise<ChatbotRow> {
  const bot = await findActiveChatbotByPublicKey(sql, publicKey);
  if (!bot) throw new NotFound("No active chatbot with that key.");
  return bot;
}

/** What a blocked visitor reads: plain, and no hint of how to get around it. */
export const VISITOR_BLOCKED_MESSAGE = "You can no longer send messages in this chat.";

/**
 * The bot for a reply, with the workspace's stored provider key (encrypted),
 * this month's quota headroom and whether the visitor is blocked: one query
 * where a reply would otherwise need four. A blocked visitor is refused (403)
 * before anything is stored or any AI call is made.
 */
export async function loadWidgetBotForReply(
  sql: Executor,
  publicKey: string,
  now: Date,
  visitorId: string,
  clientKey: string | null = null,
): Promise<ChatbotForReply> {
  const found = await findActiveChatbotForReply(
    sql,
    publicKey,
    quotaMonth(now),
    visitorId,
    clientKey,
  );
  if (!found) throw new NotFound("No active chatbot with that key.");
  if (found.visitorBlocked) throw new Forbidden(VISITOR_BLOCKED_MESSAGE);
  return found;
}
