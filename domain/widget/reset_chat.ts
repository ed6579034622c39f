/**
 * The widget's "new chat": close the visitor's conversation so the next
 * message starts a fresh one with no AI context. Idempotent.
 */
import type { AppDeps } from "../deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import { applyTransition } from "../conversations/state_machine.ts";
import { publishEvent } from "../events.ts";
import { requireVisitorConversation } from "./visitor_conversation.ts";

export async function resetChat(
  deps: AppDeps,
  bot: ChatbotRow,
  input: { visitorId: string; conversationId: string },
): Promise<{ conversation_id: string; status: "closed" }> {
  const now = deps.clock();
  const { row, changed } = await deps.sql.begin(async (tx) => {
    const found = await requireVisitorConversation(tx, bot, input.visitorId, input.conversationId, {
      forUpdate: true,
    });
    const row = await applyTransition(tx, found, "visitorReset", { now });
    return { row, changed: found.status !== row.status };
  });
  if (changed) {
    await publishEvent(deps, {
      type: "conversation.updated",
      workspaceId: bot.workspace_id,
      conversationId: row.public_id,
      reason: "visitor_reset",
    });
  }
  return { conversation_id: row.public_id, status: "closed" };
}
