/**
 * What an agent's AI call works on: the conversation of the caller's
 * workspace (404 otherwise), its bot with the stored provider key, and its
 * newest messages, oldest first (more than any prompt's budget holds).
 */
import type { AppDeps } from "../deps.ts";
import { type ChatbotForReply, findChatbotByIdForReply } from "../../db/chatbots.ts";
import { type ConversationRow, findConversationByPublicId } from "../../db/conversations.ts";
import { type MessageRow, recentMessages } from "../../db/messages.ts";
import { quotaMonth } from "../usage/quota_month.ts";
import { NotFound } from "../errors.ts";

export interface AssistTarget extends ChatbotForReply {
  conversation: ConversationRow;
  messages: MessageRow[];
}

const MESSAGES_READ = 200;

export const CONVERSATION_NOT_FOUND = "No conversation with that id in this workspace.";

export async function loadAssistTarget(
  deps: Pick<AppDeps, "sql">,
  workspaceId: number,
  publicId: string,
  now: Date,
): Promise<AssistTarget> {
  const conversation = await findConversationByPublicId(deps.sql, workspaceId, publicId);
  if (!conversation) throw new NotFound(CONVERSATION_NOT_FOUND);
  const [bot, messages] = await Promise.all([
    findChatbotByIdForReply(deps.sql, workspaceId, conversation.chatbot_id, quotaMonth(now)),
    recentMessages(deps.sql, workspaceId, conversation.id, Number.MAX_SAFE_INTEGER, MESSAGES_READ),
  ]);
  if (!bot) throw new NotFound(CONVERSATION_NOT_FOUND);
  return { ...bot, conversation, messages };
}
