/**
 * Hand a conversation to an agent of the workspace (or back to the team with
 * null). The assignee must be able to handle conversations: a viewer, a
 * suspended account or someone of another workspace is refused (422).
 */
import type { AppDeps } from "../deps.ts";
import type { ConversationStatus } from "../../db/conversations.ts";
import { findUser } from "../../db/users.ts";
import { can } from "../auth/permissions.ts";
import { Invalid } from "../errors.ts";
import { publishEvent } from "../events.ts";
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
  const { row, changed } = await deps.sql.begin(async (tx) => {
    const before = await lockConversation(tx, actor.workspaceId, input.conversationId);
    return await transitionAsAgent(tx, actor, before, "assign", now, {
      assigneeUserId: input.userId,
    });
  });
  if (changed) {
    await publishEvent(deps, {
      type: "conversation.assigned",
      workspaceId: actor.workspaceId,
      conversationId: row.public_id,
      userId: row.assigned_user_id,
      actorUserId: actor.userId,
    });
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
