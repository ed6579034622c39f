/**
 * A visitor asks for a person: `handoff_state` becomes `handoff_pending` and
 * the time is recorded, once; agents are told through `handoff.requested`.
 * Asking again (or once a human is connected) returns the current state.
 * The answer says whether any agent is connected (realtime presence), so the
 * widget can say plainly that nobody is there and offer to leave an e-mail
 * address, which a later call stores on the conversation for the agents.
 */
import type { AppDeps } from "../deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import { applyTransition } from "../conversations/state_machine.ts";
import { updateConversation } from "../../db/conversations.ts";
import { publishEvent } from "../events.ts";
import { logConversationEvent } from "../../db/conversation_events.ts";
import { requireVisitorConversation } from "./visitor_conversation.ts";
import { isoWithOffset } from "./widget_message.ts";

export interface HandoffResult {
  conversation_id: string;
  status: string;
  handoff_state: string;
  handoff_requested_at: string | null;
  /** Agents of the workspace connected right now, on any instance. */
  agents_online: boolean;
}

export async function requestHuman(
  deps: AppDeps,
  bot: ChatbotRow,
  input: { visitorId: string; conversationId: string; email?: string },
): Promise<HandoffResult> {
  const now = deps.clock();
  const { row, changed, emailChanged } = await deps.sql.begin(async (tx) => {
    const found = await requireVisitorConversation(tx, bot, input.visitorId, input.conversationId, {
      forUpdate: true,
    });
    let row = await applyTransition(tx, found, "requestHuman", { now });
    const changed = found.handoff_state !== row.handoff_state;
    if (changed) {
      await logConversationEvent(tx, bot.workspace_id, {
        conversationId: row.id,
        type: "handoff_requested",
        source: "visitor",
        now,
      });
    }
    const emailChanged = input.email !== undefined && input.email !== found.visitor_email;
    if (emailChanged) {
      row = await updateConversation(tx, bot.workspace_id, row.id, { visitor_email: input.email });
    }
    return { row, changed, emailChanged };
  });
  if (emailChanged && !changed) {
    await publishEvent(deps, {
      type: "conversation.updated",
      workspaceId: bot.workspace_id,
      conversationId: row.public_id,
      reason: "visitor_email",
    });
  }
  if (changed) {
    await publishEvent(deps, {
      type: "handoff.requested",
      workspaceId: bot.workspace_id,
      conversationId: row.public_id,
      chatbotId: bot.id,
      requestedAt: row.handoff_requested_at?.toISOString() ?? null,
    });
    await publishEvent(deps, {
      type: "conversation.updated",
      workspaceId: bot.workspace_id,
      conversationId: row.public_id,
      reason: "handoff_requested",
    });
  }
  if (emailChanged) {
    await publishEvent(deps, {
      type: "lead.captured",
      workspaceId: bot.workspace_id,
      conversationId: row.public_id,
      email: input.email!,
    });
  }
  return {
    conversation_id: row.public_id,
    status: row.status,
    handoff_state: row.handoff_state,
    handoff_requested_at: row.handoff_requested_at ? isoWithOffset(row.handoff_requested_at) : null,
    agents_online: deps.realtime.agentsOnline(bot.workspace_id) > 0,
  };
}
