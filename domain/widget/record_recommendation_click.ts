/**
 * A visitor opened a recommended product's `buy_url`: its first click is
 * stamped on the impression (portal analytics count it once). Only a product
 * shown in the visitor's own conversation counts; anything else is a 404.
 */
import type { AppDeps } from "../deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import { recordClick } from "../../db/product_recommendations.ts";
import { NotFound } from "../errors.ts";
import { requireVisitorConversation } from "./visitor_conversation.ts";

export async function recordRecommendationClick(
  deps: Pick<AppDeps, "sql">,
  bot: ChatbotRow,
  input: { visitorId: string; conversationId: string; productId: string },
): Promise<{ product_id: string; counted: true }> {
  const conversation = await requireVisitorConversation(
    deps.sql,
    bot,
    input.visitorId,
    input.conversationId,
  );
  if (!await recordClick(deps.sql, bot.workspace_id, conversation.id, input.productId)) {
    throw new NotFound("That product was not recommended in this conversation.");
  }
  return { product_id: input.productId, counted: true };
}
