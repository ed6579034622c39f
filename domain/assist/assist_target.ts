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
import { Forbidden, NotFound } from "../errors.ts";
import { brandingOf } from "../chatbots/branding.ts";

export interface AssistTarget extends ChatbotForReply {
  conversation: ConversationRow;
  messages: MessageRow[];
}

const MESSAGES_READ = 200;

export const CONVERSATION_NOT_FOUND = "No conversation with that id in this workspace.";

export const COPILOT_OFF =
  "The AI copilot is turned off for this conversation's bot (branding copilot).";

/**
 * The target of an agent's explicit AI request (suggest, summary): refused
 * with 403 when the bot's `copilot` flag is off, so agents are not offered
 * what the owner switched off.
 */
export async function loadCopilotTarget(
  deps: Pick<AppDeps, "sql">,
  workspaceId: number,
  publicId: string,
  now: Date,
): Promise<AssistTarget> {
  const target = await loadAssistTarget(deps, workspaceId, publicId, now);
  if (!brandingOf(target.bot.branding).copilot) throw new Forbidden(COPILOT_OFF);
  return target;
}

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
