/** An agent follows a conversation they do not own (or stops): alerts and `watching`. */
import type { AppDeps } from "../deps.ts";
import { findConversationByPublicId } from "../../db/conversations.ts";
import { setWatcher } from "../../db/conversation_watchers.ts";
import { NotFound } from "../errors.ts";
import { publishEvent } from "../events.ts";
import type { AgentActor } from "./agent_transition.ts";

export async function watchConversation(
  deps: AppDeps,
  actor: AgentActor,
  input: { conversationId: string; watching: boolean },
): Promise<{ watching: boolean }> {
  const conversation = await findConversationByPublicId(
    deps.sql,
    actor.workspaceId,
    input.conversationId,
  );
  if (!conversation) throw new NotFound("Conversation not found.");
  const changed = await setWatcher(
    deps.sql,
    conversation.id,
    actor.userId,
    input.watching,
    deps.clock(),
  );
  if (changed) {
    await publishEvent(deps, {
      type: "conversation.updated",
      workspaceId: actor.workspaceId,
      conversationId: conversation.public_id,
      reason: "watch",
      actorUserId: actor.userId,
    });
  }
  return { watching: input.watching };
}
