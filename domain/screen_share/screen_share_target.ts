/**
 * The conversation an agent's screen-share call works on: the caller's
 * workspace only (404 otherwise), with its bot's `screen_share` flag. With
 * `forUpdate` (in a transaction) the conversation is locked and the flag is
 * read under a share lock on the bot's row, so turning the flag off (which
 * updates that row and ends the bot's open shares in one transaction) cannot
 * slip between the read and a new share.
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
  const enabled = await screenShareEnabled(sql, conversation.chatbot_id, {
    lock: opts.forUpdate === true,
  });
  return { conversation, enabled };
}

/**
 * The bot's `screen_share` flag (branding; off by default). `lock` (in a
 * transaction that is about to start a share): read under a share lock, so a
 * concurrent turning-off either waits for this transaction (and then ends
 * its share) or has committed first (and is seen).
 */
export async function screenShareEnabled(
  sql: Executor,
  chatbotId: number,
  opts: { lock?: boolean } = {},
): Promise<boolean> {
  const lock = opts.lock ? sql`FOR SHARE` : sql``;
  const [bot] = await sql<{ branding: Record<string, unknown> }[]>`
    SELECT branding FROM chatbots WHERE id = ${chatbotId} ${lock}`;
  return bot ? brandingOf(bot.branding).screen_share : false;
}
