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
import { NotFound } from "../errors.ts";

export async function loadWidgetBot(sql: Executor, publicKey: string): Promise<ChatbotRow> {
  const bot = await findActiveChatbotByPublicKey(sql, publicKey);
  if (!bot) throw new NotFound("No active chatbot with that key.");
  return bot;
}

/**
 * The bot for a reply, with the workspace's stored provider key (encrypted)
 * and this month's quota headroom: one query where a reply would otherwise
 * need three.
 */
export async function loadWidgetBotForReply(
  sql: Executor,
  publicKey: string,
  now: Date,
): Promise<ChatbotForReply> {
  const found = await findActiveChatbotForReply(sql, publicKey, quotaMonth(now));
  if (!found) throw new NotFound("No active chatbot with that key.");
  return found;
}
