/**
 * Hand a conversation to an agent of the workspace (or back to the team with
 * null). The assignee must be able to handle conversations: a viewer, a
 * suspended account or someone of another workspace is refused (422). The
 * `conversation.assigned` webhook event is written with the change (outbox).
 */
import type { AppDeps } from "../deps.ts";
import type { ConversationStatus } from "../../db/conversations.ts";
import { findUser } from "../../db/users.ts";
import { can } from "../auth/permissions.ts";
import { Invalid } from "../errors.ts";
import { type ParleyEvent, publishEvent } from "../events.ts";
import { recordInOutbox } from "../webhooks/outbox.ts";
import { recordingsSettled } from "../webhooks/recording_order.ts";
import { type AgentActor, lockConversation, transitionAsAgent } from "./agent_transition.ts";

export interface AssignResult {
  status: ConversationStatus;
  assigned_to: { id: number; name: string } | null;
}

export async function assignConversation(
  deps: AppDeps,
  actor: AgentActor,
  input: { conversationId: string; userId: number | null },
): Promise<AssignResult> {
  const now = deps.clock();
  const assignee = input.userId === null
    ? null
    : await findUser(deps.sql, actor.workspaceId, input.userId);
  if (
    input.userId !== null &&
    (!assignee || assignee.suspended || !can(assignee.role, "handle-conversations"))
  ) {
    throw Invalid.field(
      "user_id",
      "The user_id must name an active member of this workspace who can handle conversations.",
    );
  }
  await recordingsSettled(input.conversationId);
  const { row, assigned } = await deps.sql.begin(async (tx) => {
    const before = await lockConversation(tx, actor.workspaceId, input.conversationId);
    const { row, changed } = await transitionAsAgent(tx, actor, before, "assign", now, {
      assigneeUserId: input.userId,
    });
    if (!changed) return { row, assigned: null };
    const assigned: ParleyEvent = {
      type: "conversation.assigned",
      workspaceId: actor.workspaceId,
      conversationId: row.public_id,
      userId: row.assigned_user_id,
      actorUserId: actor.userId,
    };
    await recordInOutbox(tx, now, assigned);
    return { row, assigned };
  });
  if (assigned) {
    await publishEvent(deps, assigned);
    await publishEvent(deps, {
      type: "conversation.updated",
      workspaceId: actor.workspaceId,
      conversationId: row.public_id,
      reason: "assign",
      actorUserId: actor.userId,
    });
  }
  return {
    status: row.status,
    assigned_to: assignee ? { id: assignee.id, name: assignee.name } : null,
  };
}
