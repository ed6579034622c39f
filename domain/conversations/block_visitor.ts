/**
 * Block (or unblock) the visitor of a conversation, workspace-wide: their
 * widget messages are refused with 403 and never reach the AI. Logged in
 * the conversation's events.
 */
import type { AppDeps } from "../deps.ts";
import { setVisitorBlocked } from "../../db/blocked_visitors.ts";
import { logConversationEvent } from "../../db/conversation_events.ts";
import { findConversationByPublicId } from "../../db/conversations.ts";
import { NotFound } from "../errors.ts";
import { publishEvent } from "../events.ts";
import type { AgentActor } from "./agent_transition.ts";

export async function blockVisitor(
  deps: AppDeps,
  actor: AgentActor,
  input: { conversationId: string; blocked: boolean },
): Promise<{ blocked: boolean }> {
  const now = deps.clock();
  const conversation = await findConversationByPublicId(
    deps.sql,
    actor.workspaceId,
    input.conversationId,
  );
  if (!conversation) throw new NotFound("Conversation not found.");
  const changed = await deps.sql.begin(async (tx) => {
    const changed = await setVisitorBlocked(
      tx,
      actor.workspaceId,
      conversation.visitor_id,
      input.blocked,
      actor.userId,
      now,
    );
    if (changed) {
      await logConversationEvent(tx, actor.workspaceId, {
        conversationId: conversation.id,
        type: input.blocked ? "visitor_blocked" : "visitor_unblocked",
        source: "agent",
        actorUserId: actor.userId,
        now,
      });
    }
    return changed;
  });
  if (changed) {
    await publishEvent(deps, {
      type: "conversation.updated",
      workspaceId: actor.workspaceId,
      conversationId: conversation.public_id,
      reason: "block",
      actorUserId: actor.userId,
    });
  }
  return { blocked: input.blocked };
}
