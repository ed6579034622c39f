/** POST /widget/{key}/handoff: the visitor asks for a human. */
import { z } from "zod";
import { publicProcedure } from "../trpc.ts";
import { loadWidgetBot } from "../../domain/widget/load_widget_bot.ts";
import { requestHuman } from "../../domain/widget/request_human.ts";
import { conversationIdField, conversationStatus, keyField, visitorIdField } from "./schemas.ts";

export const widgetHandoff = publicProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/widget/{key}/handoff",
      summary: "Ask for a human agent",
      description: "The AI keeps answering until an agent takes the conversation over.",
    },
    rateLimit: { name: "widget.handoff", limit: 10, windowSeconds: 60, by: "ip" },
  })
  .input(z.object({
    key: keyField,
    visitor_id: visitorIdField,
    conversation_id: conversationIdField,
    /** Where to answer when no agent is online (stored on the conversation). */
    email: z.string().trim().max(255).pipe(z.email()).optional(),
  }))
  .output(z.object({
    conversation_id: z.string(),
    status: conversationStatus,
    handoff_state: z.string(),
    handoff_requested_at: z.string().nullable(),
    agents_online: z.boolean(),
  }))
  .mutation(async ({ ctx, input }) => {
    const bot = await loadWidgetBot(ctx.deps.sql, input.key);
    return await requestHuman(ctx.deps, bot, {
      visitorId: input.visitor_id,
      conversationId: input.conversation_id,
      email: input.email?.toLowerCase(),
    });
  });
