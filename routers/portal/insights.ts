/** GET /api/portal/analytics and GET /api/portal/widget-snippet. */
import { z } from "zod";
import { portalProcedure } from "../trpc.ts";
import { monthAnalytics } from "../../domain/analytics/month_analytics.ts";
import { widgetSnippet } from "../../domain/portal/widget_snippet.ts";

/** The month's analytics, also shown by the dashboard's overview. */
export const monthAnalyticsSchema = z.object({
  period: z.literal("month"),
  since: z.string(),
  conversations: z.int(),
  messages: z.object({
    ai_replies: z.int(),
    human_replies: z.int(),
    visitor_messages: z.int(),
    total: z.int(),
  }),
  tokens: z.int(),
  cost: z.number(),
  messages_used: z.int(),
  suggestions: z.array(z.object({
    chatbot: z.string(),
    name: z.string(),
    suggested: z.int(),
    inserted: z.int(),
    edited: z.int(),
    dismissed: z.int(),
    acceptance_rate: z.number().nullable(),
  })),
  revenue: z.array(z.object({
    currency: z.string(),
    amount: z.number(),
    cents: z.int(),
    conversations: z.int(),
  })),
  recommendations: z.object({ impressions: z.int(), clicks: z.int() }),
});

export const analytics = portalProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/portal/analytics",
      summary: "This month's conversations, messages, tokens and cost",
      description: "`since` is the first day of the current month; `cost` is in whole " +
        "currency units.",
    },
  })
  .input(z.object({}))
  .output(z.object({ data: monthAnalyticsSchema }))
  .query(async ({ ctx }) => ({
    data: await monthAnalytics(ctx.deps.sql, ctx.auth!.workspace.id, ctx.now),
  }));

export const snippet = portalProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/portal/widget-snippet",
      summary: "The script tag that embeds the widget",
      description: "Uses the first active bot, otherwise the most recently created; 404 when " +
        "the workspace has no bot yet.",
      errors: [404],
    },
  })
  .input(z.object({}))
  .output(z.object({ data: z.object({ public_key: z.string(), snippet: z.string() }) }))
  .query(async ({ ctx }) => ({
    data: await widgetSnippet(ctx.deps.sql, ctx.auth!.workspace.id, ctx.deps.config.baseUrl),
  }));
