/**
 * An agent's ownership action (takeover, release, resolve, reopen): the
 * conversation locked, the one state machine applied, the change written to
 * the events log and a resolve's or reopen's webhook event (the outbox), all
 * in one transaction; `conversation.updated` after commit. A missing or
 * foreign conversation is 404.
 */
import type { AppDeps } from "../deps.ts";
import type { Tx } from "../../db/client.ts";
import {
  type ConversationRow,
  findConversationByPublicId,
  updateConversation,
} from "../../db/conversations.ts";
import { logConversationEvent } from "../../db/conversation_events.ts";
import { NotFound } from "../errors.ts";
import { type ParleyEvent, publishEvent, type UpdateReason } from "../events.ts";
import { recordInOutbox } from "../webhooks/outbox.ts";
import { recordingsSettled } from "../webhooks/recording_order.ts";
import { applyTransition, type TransitionName } from "./state_machine.ts";
import { ownershipEventType } from "./ownership_event.ts";

export interface AgentActor {
  workspaceId: number;
  userId: number;
}

/** The conversation, locked for this transaction, or NotFound. */
export async function lockConversation(
  tx: Tx,
  workspaceId: number,
  conversationId: string,
): Promise<ConversationRow> {
  const row = await findConversationByPublicId(tx, workspaceId, conversationId, {
    forUpdate: true,
  });
  if (!row) throw new NotFound("Conversation not found.");
  return row;
}

/**
 * Apply `name` as `actor` inside `tx`: the new row, and whether anything
 * changed. Records the events-log entry and how a newly assigned conversation
 * was routed.
 */
export async function transitionAsAgent(
  tx: Tx,
  actor: AgentActor,
  before: ConversationRow,
  name: TransitionName,
  now: Date,
  extra: { assigneeUserId?: number | null } = {},
): Promise<{ row: ConversationRow; changed: boolean }> {
  let row = await applyTransition(tx, before, name, {
    now,
    actorUserId: actor.userId,
    assigneeUserId: extra.assigneeUserId,
  });
  const type = ownershipEventType(before, row);
  if (row.assigned_user_id !== null && row.assigned_user_id !== before.assigned_user_id) {
    row = await updateConversation(tx, actor.workspaceId, row.id, {
      routed_by: name === "agentReply" ? "reply" : name,
    });
  }
  if (type) {
    await logConversationEvent(tx, actor.workspaceId, {
      conversationId: row.id,
      type,
      source: "agent",
      actorUserId: actor.userId,
      now,
    });
  }
  return { row, changed: row !== before };
}

/** One ownership action from start to published event. */
export async function runAgentTransition(
  deps: AppDeps,
  actor: AgentActor,
  conversationId: string,
  name: TransitionName,
  reason: UpdateReason,
): Promise<ConversationRow> {
  const now = deps.clock();
  await recordingsSettled(conversationId);
  const { row, event } = await deps.sql.begin(async (tx) => {
    const before = await lockConversation(tx, actor.workspaceId, conversationId);
    const { row, changed } = await transitionAsAgent(tx, actor, before, name, now);
    if (!changed) return { row, event: null };
    const event: ParleyEvent = {
      type: "conversation.updated",
      workspaceId: actor.workspaceId,
      conversationId: row.public_id,
      reason,
      actorUserId: actor.userId,
    };
    await recordInOutbox(tx, now, event);
    return { row, event };
  });
  if (event) await publishEvent(deps, event);
  return row;
}
