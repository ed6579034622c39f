/**
 * The conversation snapshot a widget loads after a reload: state and the
 * latest messages. Agent messages shown here count as delivered, so the next
 * heartbeat does not hand them out a second time.
 */
import type { AppDeps } from "../deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import { listRecentMessages, takeUndeliveredAgentMessages } from "../../db/widget_conversations.ts";
import { NotFound } from "../errors.ts";
import { CONVERSATION_NOT_FOUND, currentVisitorConversation } from "./visitor_conversation.ts";
import { toWidgetMessage, type WidgetMessage } from "./widget_message.ts";

/** Messages in one snapshot: enough for any chat window, bounded for huge threads. */
export const SNAPSHOT_MESSAGES = 200;

export interface WidgetSnapshot {
  conversation_id: string;
  status: string;
  handoff_state: string;
  wait_remaining: null;
  messages: WidgetMessage[];
}

export async function getSnapshot(
  deps: AppDeps,
  bot: ChatbotRow,
  input: { visitorId: string; conversationId?: string },
): Promise<WidgetSnapshot> {
  const conv = await currentVisitorConversation(
    deps.sql,
    bot,
    input.visitorId,
    input.conversationId,
  );
  if (!conv) throw new NotFound(CONVERSATION_NOT_FOUND);
  await takeUndeliveredAgentMessages(deps.sql, bot.workspace_id, conv.id, deps.clock());
  const rows = await listRecentMessages(deps.sql, bot.workspace_id, conv.id, SNAPSHOT_MESSAGES);
  return {
    conversation_id: conv.public_id,
    status: conv.status,
    handoff_state: conv.handoff_state,
    wait_remaining: null,
    messages: rows.map(toWidgetMessage),
  };
}
