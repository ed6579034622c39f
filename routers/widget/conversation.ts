/** GET /widget/{key}/conversation: the snapshot a widget reloads its history from. */
import { z } from "zod";
import { publicProcedure } from "../trpc.ts";
import { loadWidgetBot } from "../../domain/widget/load_widget_bot.ts";
import { getSnapshot } from "../../domain/widget/get_snapshot.ts";
import {
  conversationIdField,
  conversationStatus,
  keyField,
  visitorIdField,
  widgetMessageSchema,
} from "./schemas.ts";

export const widgetConversation = publicProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/widget/{key}/conversation",
      summary: "The visitor's conversation snapshot, to redraw the history",
      description: "Without `conversation_id`, the visitor's latest conversation with this bot.",
    },
    rateLimit: { name: "widget.conversation", limit: 60, windowSeconds: 60, by: "ip" },
  })
  .input(z.object({
    key: keyField,
    visitor_id: visitorIdField,
    conversation_id: conversationIdField.optional(),
  }))
  .output(z.object({
    conversation_id: z.string(),
    status: conversationStatus,
    handoff_state: z.string(),
    wait_remaining: z.null(),
    messages: z.array(widgetMessageSchema),
  }))
  .query(async ({ ctx, input }) => {
    const bot = await loadWidgetBot(ctx.deps.sql, input.key);
    return await getSnapshot(ctx.deps, bot, {
      visitorId: input.visitor_id,
      conversationId: input.conversation_id,
    });
  });
