/**
 * The report's query parameters and answer, shared by the dashboard
 * (`GET /api/dashboard/reports`) and the portal (`GET /api/portal/reports`),
 * so both surfaces give the same numbers in the same shape.
 */
import { z } from "zod";

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "Use a date such as 2026-01-31.");
const id = z.string().regex(/^[1-9]\d{0,14}$/, "Use a numeric id.");

export const reportInputShape = {
  from: day.meta({
    description: "The first local day of the period (YYYY-MM-DD).",
    example: "2026-01-01",
  }),
  to: day.meta({
    description: "The last local day of the period, inclusive (at most 400 days in all).",
    example: "2026-01-31",
  }),
  time_zone: z.string().min(1).max(64).optional().meta({
    description: "IANA time zone the days, hours and heat map are counted in (default UTC).",
    example: "Europe/Paris",
  }),
  bot: z.string().min(1).max(255).optional().meta({
    description: "A bot's public key: only its conversations.",
    example: "acme-helper",
  }),
  agent: id.optional().meta({
    description: "A member's user id: only conversations assigned to them.",
    example: "12",
  }),
  tag: id.optional().meta({
    description: "A tag id: only conversations carrying it.",
    example: "3",
  }),
};

export const reportInput = z.object(reportInputShape);

const share = z.number().nullable();
const secs = z.int().nullable();
const counts = z.array(z.int());

const figures = z.object({
  conversations: z.int(),
  visitor_messages: z.int(),
  ai_replies: z.int(),
  human_replies: z.int(),
  resolved: z.int(),
  resolved_by_ai: z.int(),
  ai_resolution_rate: share,
  handoffs: z.int(),
  handoff_rate: share,
  first_response: z.object({
    requests: z.int(),
    answered: z.int(),
    median_seconds: secs,
    p90_seconds: secs,
  }),
  resolution_time: z.object({ median_seconds: secs, p90_seconds: secs }),
  ratings: z.object({
    count: z.int(),
    distribution: counts,
    good: z.int(),
    good_share: share,
    rating_rate: share,
  }),
  recommendations: z.object({ shown: z.int(), clicked: z.int() }),
  suggestions: z.object({ suggested: z.int(), accepted: z.int() }),
  revenue: z.array(z.object({
    currency: z.string(),
    cents: z.int(),
    amount: z.number(),
    conversations: z.int(),
  })),
  tokens: z.int(),
  cost: z.number(),
});

const period = { from: z.string(), to: z.string(), since: z.string(), until: z.string() };

export const agentRowSchema = z.object({
  id: z.int(),
  name: z.string(),
  conversations: z.int(),
  first_response_median_seconds: secs,
  resolution_median_seconds: secs,
  ratings: z.int(),
  good_share: share,
});

export const botRowSchema = z.object({
  key: z.string(),
  name: z.string(),
  conversations: z.int(),
  resolved: z.int(),
  ai_resolution_rate: share,
  ratings: z.int(),
  good_share: share,
  tokens: z.int(),
  cost: z.number(),
});

export const tagRowSchema = z.object({
  id: z.int(),
  name: z.string(),
  conversations: z.int(),
  resolved: z.int(),
  resolution_median_seconds: secs,
});

export const reportSchema = z.object({
  period: z.object({
    ...period,
    time_zone: z.string(),
    granularity: z.enum(["hour", "day"]),
  }),
  previous_period: z.object(period),
  filters: z.object({
    bot: z.string().nullable(),
    agent: z.int().nullable(),
    tag: z.int().nullable(),
  }),
  figures,
  previous: figures,
  series: z.object({
    buckets: z.array(z.string()),
    conversations: counts,
    visitor_messages: counts,
    ai_replies: counts,
    human_replies: counts,
    resolved_by_ai: counts,
    resolved_by_human: counts,
  }),
  busiest_hours: z.array(counts),
  agents: z.array(agentRowSchema),
  bots: z.array(botRowSchema),
  tags: z.array(tagRowSchema),
});

export const REPORT_DESCRIPTION = "Every figure is defined in docs/reports.md. `figures` " +
  "covers the period, `previous` the same number of days just before it; shares are 0..1 " +
  "(null: nothing to divide by), durations whole seconds (null: nothing measured). " +
  "A bot, agent or tag that is not this workspace's is 422 on its field.";
