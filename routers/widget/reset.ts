/** POST /widget/{key}/chat/reset: the visitor's "new chat" closes the current one. */
import { z } from "zod";
import { publicProcedure } from "../trpc.ts";
import { loadWidgetBot } from "../../domain/widget/load_widget_bot.ts";
import { resetChat } from "../../domain/widget/reset_chat.ts";
import { conversationIdField, keyField, visitorIdField } from "./schemas.ts";

export const widgetReset = publicProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/widget/{key}/chat/reset",
      summary: "Close the visitor's conversation (the widget's \"new chat\")",
      description: "Idempotent; 404 unless the conversation belongs to this bot and visitor id.",
    },
    rateLimit: { name: "widget.reset", limit: 30, windowSeconds: 60, by: "ip" },
  })
  .input(z.object({
    key: keyField,
    visitor_id: visitorIdField,
    conversation_id: conversationIdField,
  }))
  .output(z.object({ conversation_id: z.string(), status: z.literal("closed") }))
  .mutation(async ({ ctx, input }) => {
    const bot = await loadWidgetBot(ctx.deps.sql, input.key);
    return await resetChat(ctx.deps, bot, {
      visitorId: input.visitor_id,
      conversationId: input.conversation_id,
    });
  });
