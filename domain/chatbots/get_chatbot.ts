/** Find a bot of the caller's workspace by public key, or NotFound (404). */
import type { Executor } from "../../db/client.ts";
import { type ChatbotWithCounts, findChatbotByKey } from "../../db/chatbots.ts";
import { NotFound } from "../errors.ts";

export async function getChatbot(
  sql: Executor,
  workspaceId: number,
  publicKey: string,
): Promise<ChatbotWithCounts> {
  const bot = await findChatbotByKey(sql, workspaceId, publicKey);
  if (!bot) throw new NotFound("Chatbot not found.");
  return bot;
}
