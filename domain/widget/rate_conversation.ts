/**
 * The visitor's rating of a finished conversation (1 to 5 and a comment).
 * Only a closed conversation can be rated; rating again overwrites. The
 * `conversation.rated` webhook event is written with the rating (outbox).
 */
import type { AppDeps } from "../deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import { setConversationRating } from "../../db/widget_conversations.ts";
import { Invalid } from "../errors.ts";
import { requireVisitorConversation } from "./visitor_conversation.ts";
import { type ParleyEvent, publishEvent } from "../events.ts";
import { recordInOutbox } from "../webhooks/outbox.ts";
import { recordingsSettled } from "../webhooks/recording_order.ts";

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
  const now = deps.clock();
  await recordingsSettled(input.conversationId);
  const event = await deps.sql.begin(async (tx) => {
    const found = await requireVisitorConversation(tx, bot, input.visitorId, input.conversationId, {
      forUpdate: true,
    });
    if (found.status !== "closed") {
      throw new Invalid(NOT_CLOSED, { conversation_id: [NOT_CLOSED] });
    }
    await setConversationRating(tx, bot.workspace_id, found.id, input.rating, comment, now);
    const event: ParleyEvent & { conversationId: string } = {
      type: "conversation.rated",
      workspaceId: bot.workspace_id,
      conversationId: found.public_id,
      rating: input.rating,
    };
    await recordInOutbox(tx, now, event);
    return event;
  });
  await publishEvent(deps, event);
  return { conversation_id: event.conversationId, rating: input.rating, comment };
}
