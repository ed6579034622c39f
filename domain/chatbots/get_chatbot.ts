/** Find a bot of the caller's workspace by public key, or NotFound (404). */
import type { Executor } from "../../db/client.ts";
import {
  type ChatbotForReply,
  type ChatbotWithCounts,
  findChatbotByKey,
  findWorkspaceChatbotForReply,
} from "../../db/chatbots.ts";
import { NotFound } from "../errors.ts";
import { quotaMonth } from "../usage/quota_month.ts";

export async function getChatbot(
  sql: Executor,
  workspaceId: number,
  publicKey: string,
): Promise<ChatbotWithCounts> {
  const bot = await findChatbotByKey(sql, workspaceId, publicKey);
  if (!bot) throw new NotFound("Chatbot not found.");
  return bot;
}

/**
 * The bot for a reply, with what the reply needs read in the same query (its
 * provider key, this month's quota headroom) and without the counts the bot's
 * own endpoint shows, which grow with every conversation.
 */
export async function getChatbotForReply(
  sql: Executor,
  workspaceId: number,
  publicKey: string,
  now: Date,
  clientKey: string | null = null,
): Promise<ChatbotForReply> {
  const found = await findWorkspaceChatbotForReply(
    sql,
    workspaceId,
    publicKey,
    quotaMonth(now),
    clientKey,
  );
  if (!found) throw new NotFound("Chatbot not found.");
  return found;
}
