/**
 * Attach or detach a tag of the workspace catalogue (tags are created in the
 * dashboard; agents only apply them). A tag outside the catalogue is 422 on
 * attach, 404 on detach; a foreign conversation is 404.
 */
import type { AppDeps } from "../deps.ts";
import { findConversationByPublicId } from "../../db/conversations.ts";
import { attachTag, detachTag, findTag } from "../../db/tags.ts";
import { Invalid, NotFound } from "../errors.ts";
import { publishEvent } from "../events.ts";
import type { AgentActor } from "./agent_transition.ts";

export async function tagConversation(
  deps: AppDeps,
  actor: AgentActor,
  input: { conversationId: string; tagId: number; attach: boolean },
): Promise<void> {
  const conversation = await findConversationByPublicId(
    deps.sql,
    actor.workspaceId,
    input.conversationId,
  );
  if (!conversation) throw new NotFound("Conversation not found.");
  const tag = await findTag(deps.sql, actor.workspaceId, input.tagId);
  if (!tag) {
    if (input.attach) {
      throw Invalid.field(
        "tag_id",
        "The selected tag_id is not in this workspace's tag catalogue.",
      );
    }
    throw new NotFound("Tag not found.");
  }
  const changed = input.attach
    ? await attachTag(deps.sql, conversation.id, tag.id, "manual")
    : await detachTag(deps.sql, conversation.id, tag.id);
  if (changed) {
    await publishEvent(deps, {
      type: "conversation.updated",
      workspaceId: actor.workspaceId,
      conversationId: conversation.public_id,
      reason: "tags",
      actorUserId: actor.userId,
    });
  }
}
