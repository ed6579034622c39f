/**
 * The bot behind a public widget key. An unknown key, an inactive bot and a
 * suspended workspace all answer the same 404, so the widget reveals nothing.
 */
import type { Executor } from "../../db/client.ts";
import {
  type ChatbotRow,
  findActiveChatbotByPublicKey,
  findActiveChatbotWithProviderKey,
} from "../../db/chatbots.ts";
import { NotFound } from "../errors.ts";

export async function loadWidgetBot(sql: Executor, publicKey: string): Promise<ChatbotRow> {
  const bot = await findActiveChatbotByPublicKey(sql, publicKey);
  if (!bot) throw new NotFound("No active chatbot with that key.");
  return bot;
}

/**
 * The bot for a reply, with the workspace's stored provider key (encrypted;
 * null when none): one query where a reply would otherwise need two.
 */
export async function loadWidgetBotForReply(
  sql: Executor,
  publicKey: string,
): Promise<{ bot: ChatbotRow; providerCiphertext: string | null }> {
  const found = await findActiveChatbotWithProviderKey(sql, publicKey);
  if (!found) throw new NotFound("No active chatbot with that key.");
  return found;
}
