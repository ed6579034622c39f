/**
 * An agent opens a conversation: it is read by that agent from now on (unread
 * is per agent), and the full `active` view is returned. An unknown or foreign
 * id is not an error here: the inbox answers with `active: null`.
 */
import type { AppDeps } from "../deps.ts";
import { findConversationDetail } from "../../db/conversation_detail.ts";
import { isUuid } from "../../db/conversations.ts";
import { markConversationRead } from "../../db/inbox.ts";
import { publishEvent } from "../events.ts";
import { type ActiveConversation, toActiveConversation } from "./active_conversation.ts";

export async function openConversation(
  deps: AppDeps,
  input: { workspaceId: number; userId: number; conversationId: string; timeZone?: string },
): Promise<ActiveConversation | null> {
  if (!isUuid(input.conversationId)) return null;
  const now = deps.clock();
  const detail = await findConversationDetail(deps.sql, input.workspaceId, input.conversationId);
  if (!detail) return null;
  const changed = await markConversationRead(deps.sql, detail.id, input.userId, now);
  if (changed) {
    await publishEvent(deps, {
      type: "conversation.updated",
      workspaceId: input.workspaceId,
      conversationId: detail.public_id,
      reason: "read",
      actorUserId: input.userId,
    });
  }
  return toActiveConversation(detail, {
    viewerUserId: input.userId,
    now,
    timeZone: input.timeZone,
  });
}
