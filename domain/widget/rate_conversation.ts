/**
 * The visitor's rating of a finished conversation (1 to 5 and a comment).
 * Only a closed conversation can be rated; rating again overwrites.
 */
import type { AppDeps } from "../deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import { setConversationRating } from "../../db/widget_conversations.ts";
import { Invalid } from "../errors.ts";
import { requireVisitorConversation } from "./visitor_conversation.ts";
import { publishEvent } from "../events.ts";

export interface RatingResult {
  conversation_id: string;
  rating: number;
  comment: string | null;
}

export const NOT_CLOSED = "The conversation must be closed before it can be rated.";

export async function rateConversation(
  deps: AppDeps,
  bot: ChatbotRow,
  input: { visitorId: string; conversationId: string; rating: number; comment?: string },
): Promise<RatingResult> {
  const comment = input.comment?.trim() ? input.comment.trim() : null;
  const row = await deps.sql.begin(async (tx) => {
    const found = await requireVisitorConversation(tx, bot, input.visitorId, input.conversationId, {
      forUpdate: true,
    });
    if (found.status !== "closed") {
      throw new Invalid(NOT_CLOSED, { conversation_id: [NOT_CLOSED] });
    }
    await setConversationRating(tx, bot.workspace_id, found.id, input.rating, comment);
    return found;
  });
  await publishEvent(deps, {
    type: "conversation.rated",
    workspaceId: bot.workspace_id,
    conversationId: row.public_id,
    rating: input.rating,
  });
  return { conversation_id: row.public_id, rating: input.rating, comment };
}
