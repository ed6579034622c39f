/**
 * The headline figures of a period (docs/reports.md defines each), folded
 * from the grouped query rows. Shares are 0..1 rounded to 4 places, null when
 * there is nothing to divide by; durations are whole seconds of wall-clock
 * time, null when nothing was measured.
 */
import type { DurationStats, RatingCounts } from "../../db/report_conversations.ts";
import type { HourlyMessages } from "../../db/report_messages.ts";
import type { StartedCounts } from "../../db/report_conversations.ts";
import type { ExtraTotals } from "../../db/report_extras.ts";
import { minorUnitDigits } from "../money.ts";
import { microCentsToUnits } from "../analytics/month_analytics.ts";

export interface ReportFigures {
  conversations: number;
  visitor_messages: number;
  ai_replies: number;
  human_replies: number;
  resolved: number;
  resolved_by_ai: number;
  ai_resolution_rate: number | null;
  handoffs: number;
  handoff_rate: number | null;
  first_response: DurationFigure & { requests: number; answered: number };
  resolution_time: DurationFigure;
  ratings: {
    count: number;
    /** Ratings of 1, 2, 3, 4 and 5, in that order. */
    distribution: number[];
    good: number;
    good_share: number | null;
    rating_rate: number | null;
  };
  recommendations: { shown: number; clicked: number };
  suggestions: { suggested: number; accepted: number };
  revenue: { currency: string; cents: number; amount: number; conversations: number }[];
  tokens: number;
  cost: number;
}

export interface DurationFigure {
  median_seconds: number | null;
  p90_seconds: number | null;
}

export interface FigureRows {
  started: StartedCounts[];
  messages: HourlyMessages[];
  resolutions: DurationStats[];
  firstResponses: DurationStats[];
  ratings: RatingCounts[];
  extras: ExtraTotals;
  assist: { bot: number; tokens: string; cost_micro_cents: string }[];
  revenue: { currency: string; cents: string; conversations: number }[];
}

/** part / whole, 0..1 to 4 places; null when whole is 0. */
export function share(part: number, whole: number): number | null {
  return whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000;
}

export const seconds = (v: number | null | undefined): number | null =>
  v === null || v === undefined ? null : Math.round(Number(v));

export function duration(s: DurationStats | undefined): DurationFigure {
  return { median_seconds: seconds(s?.median), p90_seconds: seconds(s?.p90) };
}

const sum = <T>(rows: T[], f: (r: T) => number) => rows.reduce((a, r) => a + f(r), 0);

/** Good ratings: 4 or 5 stars. */
export const GOOD_RATING = 4;

export function ratingFigures(rows: RatingCounts[], resolvedClosed: number) {
  const distribution = [1, 2, 3, 4, 5].map((v) =>
    sum(rows.filter((r) => r.rating === v), (r) => r.n)
  );
  const count = sum(distribution, (n) => n);
  const good = distribution[3]! + distribution[4]!;
  return {
    count,
    distribution,
    good,
    good_share: share(good, count),
    rating_rate: share(count, resolvedClosed),
  };
}

export function foldFigures(rows: FigureRows): ReportFigures {
  const byRole = (role: HourlyMessages["role"]) =>
    sum(rows.messages.filter((m) => m.role === role), (m) => m.n);
  const conversations = sum(rows.started, (r) => r.conversations);
  const handoffs = sum(rows.started, (r) => r.handoffs);
  const all = (stats: DurationStats[]) => stats.find((s) => s.kind === "all");
  const res = all(rows.resolutions);
  const frt = all(rows.firstResponses);
  const resolved = res?.n ?? 0;
  const resolvedByAi = res?.m ?? 0;
  const closed = sum(rows.resolutions.filter((r) => r.kind === "hour" && r.closed), (r) => r.n);
  const microCents = BigInt(0) +
    rows.messages.reduce((a, m) => a + BigInt(m.cost_micro_cents ?? "0"), 0n) +
    rows.assist.reduce((a, r) => a + BigInt(r.cost_micro_cents ?? "0"), 0n);
  return {
    conversations,
    visitor_messages: byRole("visitor"),
    ai_replies: byRole("assistant"),
    human_replies: byRole("agent"),
    resolved,
    resolved_by_ai: resolvedByAi,
    ai_resolution_rate: share(resolvedByAi, resolved),
    handoffs,
    handoff_rate: share(handoffs, conversations),
    first_response: { requests: frt?.n ?? 0, answered: frt?.m ?? 0, ...duration(frt) },
    resolution_time: duration(res),
    ratings: ratingFigures(rows.ratings, closed),
    recommendations: {
      shown: rows.extras.recommendations_shown,
      clicked: rows.extras.recommendations_clicked,
    },
    suggestions: {
      suggested: rows.extras.suggestions,
      accepted: rows.extras.suggestions_accepted,
    },
    revenue: rows.revenue.map((r) => ({
      currency: r.currency,
      cents: Number(r.cents),
      amount: Number(r.cents) / 10 ** minorUnitDigits(r.currency),
      conversations: r.conversations,
    })),
    tokens: sum(rows.messages, (m) => Number(m.tokens ?? 0)) +
      sum(rows.assist, (r) => Number(r.tokens ?? 0)),
    cost: microCentsToUnits(microCents),
  };
}
