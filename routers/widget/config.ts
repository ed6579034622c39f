/** GET /widget/{key}/config: what the widget needs before it draws anything. */
import { z } from "zod";
import { publicProcedure } from "../trpc.ts";
import { brandingSchema } from "../schemas/branding.ts";
import { loadWidgetBot } from "../../domain/widget/load_widget_bot.ts";
import { buildWidgetConfig } from "../../domain/widget/build_widget_config.ts";
import { keyField } from "./schemas.ts";

const prechatField = z.object({
  name: z.enum(["name", "email", "phone"]),
  label: z.string(),
  type: z.enum(["text", "email", "tel"]),
  required: z.boolean(),
});

export const widgetConfig = publicProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/widget/{key}/config",
      summary: "What the widget needs before it draws: branding, welcome, pre-chat form",
      description: "An unknown key and a disabled bot answer the same 404.",
    },
    rateLimit: { name: "widget.config", limit: 60, windowSeconds: 60, by: "ip" },
  })
  .input(z.object({ key: keyField }))
  .output(z.object({
    data: z.object({
      public_key: z.string(),
      name: z.string(),
      welcome_message: z.string(),
      branding: brandingSchema,
      quick_replies: z.array(z.string()),
      proactive: brandingSchema.shape.proactive,
      prechat: z.object({ enabled: z.boolean(), fields: z.array(prechatField) }),
      realtime: z.object({
        transport: z.literal("pusher"),
        key: z.string(),
        host: z.string(),
        port: z.int(),
        tls: z.boolean(),
        heartbeat_seconds: z.int(),
        stream_path: z.string(),
      }),
      features: z.object({ human_handoff: z.boolean(), rating: z.boolean() }),
    }),
  }))
  .query(async ({ ctx, input }) => {
    const bot = await loadWidgetBot(ctx.deps.sql, input.key);
    const { config } = ctx.deps;
    return {
      data: buildWidgetConfig(bot, { key: config.realtimeKey, url: config.realtimeUrl! }),
    };
  });
