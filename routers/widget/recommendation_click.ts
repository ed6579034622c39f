/** POST /widget/{key}/recommendations/click: the visitor opened a recommended product. */
import { z } from "zod";
import { publicProcedure } from "../trpc.ts";
import { loadWidgetBot } from "../../domain/widget/load_widget_bot.ts";
import { recordRecommendationClick } from "../../domain/widget/record_recommendation_click.ts";
import { conversationIdField, keyField, visitorIdField } from "./schemas.ts";

export const widgetRecommendationClick = publicProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/widget/{key}/recommendations/click",
      summary: "Count a click on a recommended product",
      description: "The widget calls it when the visitor opens a product card's `buy_url`. " +
        "Only a product recommended in the visitor's own conversation counts (404 otherwise); " +
        "the first click on each recommendation is counted, later ones change nothing.",
    },
    rateLimit: { name: "widget.recommendation_click", limit: 30, windowSeconds: 60, by: "ip" },
  })
  .input(z.object({
    key: keyField,
    visitor_id: visitorIdField,
    conversation_id: conversationIdField,
    product_id: z.string().min(1).max(255),
  }))
  .output(z.object({ product_id: z.string(), counted: z.literal(true) }))
  .mutation(async ({ ctx, input }) => {
    const bot = await loadWidgetBot(ctx.deps.sql, input.key);
    return await recordRecommendationClick(ctx.deps, bot, {
      visitorId: input.visitor_id,
      conversationId: input.conversation_id,
      productId: input.product_id,
    });
  });
