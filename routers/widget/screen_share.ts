/**
 * Screen sharing from the visitor's side (docs/widget-api.md):
 * POST /widget/{key}/screen-share answers an agent's request (accept, decline)
 * or ends sharing (stop, leave); POST /widget/{key}/screen-share/events sends
 * the masked page recording, relayed to the agents and never stored.
 */
import { z } from "zod";
import { publicProcedure } from "../trpc.ts";
import { loadWidgetBot } from "../../domain/widget/load_widget_bot.ts";
import { answerScreenShare } from "../../domain/screen_share/answer_screen_share.ts";
import { relayScreenEvents } from "../../domain/screen_share/relay_screen_events.ts";
import { conversationIdField, keyField, visitorIdField } from "./schemas.ts";

/** One batch: a full view of a large page fits; the agent's socket queue (1 MiB) holds two. */
export const SCREEN_BATCH_BYTES = 512 * 1024;
export const SCREEN_BATCH_EVENTS = 2000;

export const widgetScreenShare = publicProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/widget/{key}/screen-share",
      summary: "Answer an agent's request to see the page, or stop sharing",
      description:
        "`accept` (409 when no request waits or the page is already shared from another tab, 403 when the bot's `screen_share` flag is off), `decline`, `stop`, or `leave` (the page is being left). `screen_share` is null when none was ever requested.",
      errors: [409],
    },
    rateLimit: { name: "widget.screen-share", limit: 30, windowSeconds: 60, by: "ip" },
  })
  .input(z.object({
    key: keyField,
    visitor_id: visitorIdField,
    conversation_id: conversationIdField,
    action: z.enum(["accept", "decline", "stop", "leave"]),
  }))
  .output(z.object({
    screen_share: z.object({
      id: z.int(),
      state: z.enum(["requested", "active", "declined", "ended"]),
    }).nullable(),
  }))
  .mutation(async ({ ctx, input }) => {
    const bot = await loadWidgetBot(ctx.deps.sql, input.key);
    const r = await answerScreenShare(ctx.deps, bot, {
      visitorId: input.visitor_id,
      conversationId: input.conversation_id,
      action: input.action,
    });
    return {
      screen_share: r.screen_share && { id: r.screen_share.id, state: r.screen_share.state },
    };
  });

export const widgetScreenEvents = publicProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/widget/{key}/screen-share/events",
      summary: "Send a batch of the shared page's recording (rrweb events)",
      description:
        `Only while the visitor's share is active (409 otherwise: stop recording). A body over ${SCREEN_BATCH_BYTES} bytes is refused with 413, more than ${SCREEN_BATCH_EVENTS} events with 422; at most 240 batches a minute per address (429).`,
      errors: [409],
    },
    rateLimit: { name: "widget.screen-events", limit: 240, windowSeconds: 60, by: "ip" },
    maxBodyBytes: SCREEN_BATCH_BYTES,
  })
  .input(z.object({
    key: keyField,
    visitor_id: visitorIdField,
    conversation_id: conversationIdField,
    // Each event as its JSON text: a page's DOM nests far deeper than request bodies may, and
    // the server only relays it (the agent's viewer parses it).
    events: z.array(
      z.string().max(SCREEN_BATCH_BYTES).refine(
        (e) => e.startsWith("{") && e.endsWith("}"),
        "Each event must be one rrweb event, as JSON object text.",
      ),
    ).max(SCREEN_BATCH_EVENTS),
  }))
  .output(z.object({ accepted: z.int() }))
  .mutation(async ({ ctx, input }) => {
    const bot = await loadWidgetBot(ctx.deps.sql, input.key);
    return await relayScreenEvents(ctx.deps, bot, {
      visitorId: input.visitor_id,
      conversationId: input.conversation_id,
      events: input.events,
    });
  });
