/** POST /widget/{key}/heartbeat: presence and page, and agent messages not yet delivered. */
import { z } from "zod";
import { publicProcedure } from "../trpc.ts";
import { loadWidgetBot } from "../../domain/widget/load_widget_bot.ts";
import { heartbeat } from "../../domain/widget/heartbeat.ts";
import { clientCountry } from "../doors/client_country.ts";
import {
  conversationIdField,
  conversationStateSchema,
  keyField,
  visitorIdField,
  widgetMessageSchema,
} from "./schemas.ts";

export const widgetHeartbeat = publicProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/widget/{key}/heartbeat",
      summary: "Report the visitor's presence; returns new messages and the next poll delay",
      description: "Sent while the page is open. An agent's replies arrive here.",
    },
    rateLimit: { name: "widget.heartbeat", limit: 120, windowSeconds: 60, by: "ip" },
  })
  .input(z.object({
    key: keyField,
    visitor_id: visitorIdField,
    conversation_id: conversationIdField.optional(),
    page_url: z.string().max(2048).optional(),
    page_title: z.string().max(300).optional(),
    referrer: z.string().max(2048).optional(),
    chat_open: z.boolean(),
    locale: z.string().max(35).optional(),
    timezone: z.string().max(64).optional(),
  }))
  .output(z.object({
    poll_seconds: z.int(),
    conversation: conversationStateSchema.extend({
      realtime_channel: z.string(),
      /** An open screen-share request or share (branding `screen_share`), else null. */
      screen_share: z.object({
        id: z.int(),
        state: z.enum(["requested", "active", "declined", "ended"]),
      }).nullable(),
    }).nullable(),
    messages: z.array(widgetMessageSchema),
  }))
  .mutation(async ({ ctx, input }) => {
    const bot = await loadWidgetBot(ctx.deps.sql, input.key);
    return await heartbeat(ctx.deps, bot, {
      visitorId: input.visitor_id,
      conversationId: input.conversation_id,
      pageUrl: input.page_url,
      pageTitle: input.page_title,
      referrer: input.referrer,
      chatOpen: input.chat_open,
      locale: input.locale,
      timezone: input.timezone,
      userAgent: ctx.req.headers.get("user-agent"),
      country: clientCountry(ctx.req, ctx.deps.config.trustedProxies),
    });
  });
