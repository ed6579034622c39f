/**
 * A visitor asks for a person: `handoff_state` becomes `handoff_pending` and
 * the time is recorded, once; agents are told through `handoff.requested`.
 * Asking again (or once a human is connected) returns the current state.
 * The answer says whether any agent is connected (realtime presence), so the
 * widget can say plainly that nobody is there and offer to leave an e-mail
 * address, which a later call stores on the conversation for the agents.
 * The `conversation.handoff_requested` and `lead.captured` webhook events are
 * written with the change (outbox); the bus events follow the commit.
 */
import type { AppDeps } from "../deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import { applyTransition } from "../conversations/state_machine.ts";
import { updateConversation } from "../../db/conversations.ts";
import { type ParleyEvent, publishEvent } from "../events.ts";
import { recordInOutbox } from "../webhooks/outbox.ts";
import { recordingsSettled } from "../webhooks/recording_order.ts";
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
  await recordingsSettled(input.conversationId);
  const { row, events } = await deps.sql.begin(async (tx) => {
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
    const events = eventsOf(bot, row, changed, emailChanged ? input.email! : null);
    for (const event of events) await recordInOutbox(tx, now, event);
    return { row, events };
  });
  for (const event of events) await publishEvent(deps, event);
  return {
    conversation_id: row.public_id,
    status: row.status,
    handoff_state: row.handoff_state,
    handoff_requested_at: row.handoff_requested_at ? isoWithOffset(row.handoff_requested_at) : null,
    agents_online: deps.realtime.agentsOnline(bot.workspace_id) > 0,
  };
}

/** What the request changed, as events, in the order subscribers see them. */
function eventsOf(
  bot: ChatbotRow,
  row: { public_id: string; handoff_requested_at: Date | null },
  requested: boolean,
  email: string | null,
): ParleyEvent[] {
  const base = { workspaceId: bot.workspace_id, conversationId: row.public_id };
  const events: ParleyEvent[] = [];
  if (email !== null && !requested) {
    events.push({ ...base, type: "conversation.updated", reason: "visitor_email" });
  }
  if (requested) {
    events.push(
      {
        ...base,
        type: "handoff.requested",
        chatbotId: bot.id,
        requestedAt: row.handoff_requested_at?.toISOString() ?? null,
      },
      { ...base, type: "conversation.updated", reason: "handoff_requested" },
    );
  }
  if (email !== null) events.push({ ...base, type: "lead.captured", email });
  return events;
}
