/**
 * The conversation an agent's screen-share call works on: the caller's
 * workspace only (404 otherwise), with its bot's `screen_share` flag.
 */
import type { Executor } from "../../db/client.ts";
import { type ConversationRow, findConversationByPublicId } from "../../db/conversations.ts";
import { brandingOf } from "../chatbots/branding.ts";
import { NotFound } from "../errors.ts";

export const CONVERSATION_NOT_FOUND = "No conversation with that id in this workspace.";

export async function loadScreenShareTarget(
  sql: Executor,
  workspaceId: number,
  publicId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<{ conversation: ConversationRow; enabled: boolean }> {
  const conversation = await findConversationByPublicId(sql, workspaceId, publicId, opts);
  if (!conversation) throw new NotFound(CONVERSATION_NOT_FOUND);
  return { conversation, enabled: await screenShareEnabled(sql, conversation.chatbot_id) };
}

/** The bot's `screen_share` flag (branding; off by default). */
export async function screenShareEnabled(sql: Executor, chatbotId: number): Promise<boolean> {
  const [bot] = await sql<{ branding: Record<string, unknown> }[]>`
    SELECT branding FROM chatbots WHERE id = ${chatbotId}`;
  return bot ? brandingOf(bot.branding).screen_share : false;
}
