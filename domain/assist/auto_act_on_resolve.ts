/**
 * The bot's `auto_actions`: when a conversation is resolved, the service
 * writes its summary (as the summary endpoint would) and attaches the
 * catalogue tags the summary suggests with high confidence, with source `ai`
 * (so `active.tags` shows who chose them). Runs after the resolve has been
 * answered; a failure (no key, provider down) leaves the conversation as it
 * was and is logged. Off: nothing happens by itself.
 */
import type { AppDeps } from "../deps.ts";
import { findConversationByPublicId } from "../../db/conversations.ts";
import { findChatbotByIdForReply } from "../../db/chatbots.ts";
import { quotaMonth } from "../usage/quota_month.ts";
import { attachTag } from "../../db/tags.ts";
import { brandingOf } from "../chatbots/branding.ts";
import { publishEvent } from "../events.ts";
import { summarizeConversation } from "./summarize_conversation.ts";

/** A suggested tag at or above this confidence is applied by itself. */
export const AUTO_TAG_CONFIDENCE = 0.8;

export async function autoActOnResolve(
  deps: AppDeps,
  input: { workspaceId: number; userId: number; conversationId: string },
): Promise<void> {
  try {
    const conversation = await findConversationByPublicId(
      deps.sql,
      input.workspaceId,
      input.conversationId,
    );
    if (!conversation) return;
    const found = await findChatbotByIdForReply(
      deps.sql,
      input.workspaceId,
      conversation.chatbot_id,
      quotaMonth(deps.clock()),
    );
    if (!found || !brandingOf(found.bot.branding).auto_actions) return;
    const summary = await summarizeConversation(deps, input, { automatic: true });
    const sure = summary.tag_suggestions.filter((t) => t.confidence >= AUTO_TAG_CONFIDENCE);
    let attached = 0;
    for (const t of sure) {
      if (await attachTag(deps.sql, conversation.id, t.id, "ai")) attached++;
    }
    if (attached > 0) {
      await publishEvent(deps, {
        type: "conversation.updated",
        workspaceId: input.workspaceId,
        conversationId: conversation.public_id,
        reason: "tags",
      });
    }
  } catch (err) {
    deps.log.warn("auto actions on resolve failed; the conversation is left as it was", {
      conversation: input.conversationId,
      err: err instanceof Error ? err.message : String(err),
    });
  }
}
