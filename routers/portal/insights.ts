/** GET /api/portal/analytics and GET /api/portal/widget-snippet. */
import { z } from "zod";
import { portalProcedure } from "../trpc.ts";
import { monthAnalytics } from "../../domain/analytics/month_analytics.ts";
import { widgetSnippet } from "../../domain/portal/widget_snippet.ts";

export const analytics = portalProcedure
  .meta({ openapi: { method: "GET", path: "/api/portal/analytics", tags: ["portal"] } })
  .input(z.object({}))
  .output(z.object({
    data: z.object({
      period: z.literal("month"),
      since: z.string(),
      conversations: z.number(),
      messages: z.object({
        ai_replies: z.number(),
        human_replies: z.number(),
        visitor_messages: z.number(),
        total: z.number(),
      }),
      tokens: z.number(),
      cost: z.number(),
      messages_used: z.number(),
      suggestions: z.array(z.object({
        chatbot: z.string(),
        name: z.string(),
        suggested: z.number(),
        inserted: z.number(),
        edited: z.number(),
        dismissed: z.number(),
        acceptance_rate: z.number().nullable(),
      })),
      revenue: z.array(z.object({
        currency: z.string(),
        amount: z.number(),
        cents: z.number(),
        conversations: z.number(),
      })),
    }),
  }))
  .query(async ({ ctx }) => ({
    data: await monthAnalytics(ctx.deps.sql, ctx.auth!.workspace.id, ctx.now),
  }));

export const snippet = portalProcedure
  .meta({ openapi: { method: "GET", path: "/api/portal/widget-snippet", tags: ["portal"] } })
  .input(z.object({}))
  .output(z.object({ data: z.object({ public_key: z.string(), snippet: z.string() }) }))
  .query(async ({ ctx }) => ({
    data: await widgetSnippet(ctx.deps.sql, ctx.auth!.workspace.id, ctx.deps.config.baseUrl),
  }));
