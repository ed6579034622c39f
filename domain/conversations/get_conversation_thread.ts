/** A conversation of the caller's workspace with all its messages, or NotFound (404). */
import type { Executor } from "../../db/client.ts";
import { type ConversationRow, findConversationByPublicId } from "../../db/conversations.ts";
import { listMessages, type MessageRow } from "../../db/messages.ts";
import { NotFound } from "../errors.ts";

export async function getConversationThread(
  sql: Executor,
  workspaceId: number,
  publicId: string,
): Promise<{ conversation: ConversationRow; messages: MessageRow[] }> {
  const conversation = await findConversationByPublicId(sql, workspaceId, publicId);
  if (!conversation) throw new NotFound("Conversation not found.");
  return { conversation, messages: await listMessages(sql, workspaceId, conversation.id) };
}
