/** POST /widget/{key}/rating: the visitor rates a closed conversation (1 to 5). */
import { z } from "zod";
import { publicProcedure } from "../trpc.ts";
import { loadWidgetBot } from "../../domain/widget/load_widget_bot.ts";
import { rateConversation } from "../../domain/widget/rate_conversation.ts";
import { conversationIdField, keyField, visitorIdField } from "./schemas.ts";

export const widgetRating = publicProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/widget/{key}/rating",
      summary: "Rate a closed conversation from 1 to 5",
      description: "Only a closed conversation can be rated (422 otherwise); rating again " +
        "replaces the earlier rating.",
    },
    rateLimit: { name: "widget.rating", limit: 10, windowSeconds: 60, by: "ip" },
  })
  .input(z.object({
    key: keyField,
    visitor_id: visitorIdField,
    conversation_id: conversationIdField,
    rating: z.number().int().min(1).max(5),
    comment: z.string().max(1000).optional(),
  }))
  .output(z.object({
    conversation_id: z.string(),
    rating: z.int(),
    comment: z.string().nullable(),
  }))
  .mutation(async ({ ctx, input }) => {
    const bot = await loadWidgetBot(ctx.deps.sql, input.key);
    return await rateConversation(ctx.deps, bot, {
      visitorId: input.visitor_id,
      conversationId: input.conversation_id,
      rating: input.rating,
      comment: input.comment,
    });
  });
