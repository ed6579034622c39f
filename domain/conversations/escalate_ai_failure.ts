/**
 * The AI could not answer a visitor (no model, no key, the provider down or
 * stalled) and the visitor saw an error: the conversation now waits for a
 * human (Waiting in the inbox, with the reason), the events log says
 * `ai_failed`, and agents are alerted as for a visitor's request. Best effort:
 * the visitor's error answer never waits on or fails because of it.
 */
import type { AppDeps } from "../deps.ts";
import { findConversationByPublicId } from "../../db/conversations.ts";
import { logConversationEvent } from "../../db/conversation_events.ts";
import { type ParleyEvent, publishEvent } from "../events.ts";
import { recordInOutbox } from "../webhooks/outbox.ts";
import { recordingsSettled } from "../webhooks/recording_order.ts";
import { applyTransition } from "./state_machine.ts";

export async function escalateAiFailure(
  deps: AppDeps,
  input: { workspaceId: number; chatbotId: number; conversationId: string; cause: string },
): Promise<void> {
  const now = deps.clock();
  const reason = `The AI could not answer: ${input.cause}`.slice(0, 500);
  try {
    await recordingsSettled(input.conversationId);
    const outcome = await deps.sql.begin(async (tx) => {
      const found = await findConversationByPublicId(tx, input.workspaceId, input.conversationId, {
        forUpdate: true,
      });
      // Closed meanwhile, or a human owns it: nobody needs to be called.
      if (!found || found.status !== "bot") return null;
      const row = await applyTransition(tx, found, "aiFailed", { now, reason });
      if (row === found) return null;
      await logConversationEvent(tx, input.workspaceId, {
        conversationId: row.id,
        type: "ai_failed",
        source: "ai",
        now,
      });
      if (found.handoff_state === "handoff_pending") return { row, request: null };
      const request: ParleyEvent = {
        type: "handoff.requested",
        workspaceId: input.workspaceId,
        conversationId: row.public_id,
        chatbotId: input.chatbotId,
        requestedAt: row.handoff_requested_at?.toISOString() ?? null,
      };
      await recordInOutbox(tx, now, request);
      return { row, request };
    });
    if (!outcome) return;
    if (outcome.request) await publishEvent(deps, outcome.request);
    await publishEvent(deps, {
      type: "conversation.updated",
      workspaceId: input.workspaceId,
      conversationId: outcome.row.public_id,
      reason: "ai_failed",
    });
  } catch (err) {
    deps.log.error("could not mark the conversation as needing a human", { err: String(err) });
  }
}
