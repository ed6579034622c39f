/** GET /api/dashboard/overview and GET /api/dashboard/overview/series: the overview screen. */
import { z } from "zod";
import { dashboardProcedure } from "../trpc.ts";
import { monthAnalyticsSchema } from "../portal/insights.ts";
import { dashboardOverview } from "../../domain/dashboard/overview.ts";
import { usageSeries } from "../../domain/dashboard/usage_series.ts";
import { COST_CURRENCY } from "../../domain/ai/pricing.ts";

export const overview = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/overview",
      summary: "This month's usage against the plan, and the month's analytics",
      description: "`usage` puts messages, bots and seats beside the plan's limits " +
        "(`message_limit` null: unlimited); `month` is `GET /api/portal/analytics`'s `data`; " +
        "`cost_currency` is the ISO 4217 currency of `month.cost` (model prices are in US dollars).",
    },
  })
  .input(z.object({}))
  .output(z.object({
    plan: z.string(),
    usage: z.object({
      messages_used: z.int(),
      message_limit: z.int().nullable(),
      usage_percent: z.number().nullable(),
      chatbots: z.int(),
      chatbot_limit: z.int(),
      seats: z.int(),
      agent_seats: z.int(),
    }),
    month: monthAnalyticsSchema,
    cost_currency: z.string(),
  }))
  .query(async ({ ctx }) => ({
    ...await dashboardOverview(ctx.deps.sql, ctx.auth!.workspace.id, ctx.now),
    cost_currency: COST_CURRENCY,
  }));

const counts = z.array(z.int());

export const series = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/overview/series",
      summary: "Messages per day by author and conversations resolved by the AI or a human",
      description: "The last 30 UTC days, today last, every day present. A conversation is " +
        "resolved by a human on the day an agent resolved it; by the AI when it stayed with the " +
        "bot (no handoff, no human reply, an AI reply) and has been quiet 30 minutes, on the day " +
        "of its last message.",
    },
  })
  .input(z.object({}))
  .output(z.object({
    days: z.array(z.string()),
    messages: z.object({ visitor: counts, ai: counts, human: counts }),
    resolved: z.object({ ai: counts, human: counts }),
  }))
  .query(({ ctx }) => usageSeries(ctx.deps.sql, ctx.auth!.workspace.id, ctx.now));
