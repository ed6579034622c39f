/**
 * The overview's charts: the last 30 UTC days (today included), every day
 * present (zero when nothing happened), so the browser draws without filling
 * gaps. See db/daily_series.ts for what "resolved by the AI" means.
 */
import type { Executor } from "../../db/client.ts";
import { dailyMessages, dailyResolutions } from "../../db/daily_series.ts";

export const SERIES_DAYS = 30;
/** A conversation left with the bot counts as resolved by the AI after this quiet time. */
export const AI_RESOLVED_AFTER_MS = 30 * 60 * 1000;

export interface UsageSeries {
  days: string[];
  messages: { visitor: number[]; ai: number[]; human: number[] };
  resolved: { ai: number[]; human: number[] };
}

export async function usageSeries(
  sql: Executor,
  workspaceId: number,
  now: Date,
): Promise<UsageSeries> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const since = new Date(today - (SERIES_DAYS - 1) * 86_400_000);
  const until = new Date(today + 86_400_000);
  const days = Array.from(
    { length: SERIES_DAYS },
    (_, i) => new Date(since.getTime() + i * 86_400_000).toISOString().slice(0, 10),
  );
  const [messages, resolutions] = await Promise.all([
    dailyMessages(sql, workspaceId, since, until),
    dailyResolutions(
      sql,
      workspaceId,
      since,
      until,
      new Date(now.getTime() - AI_RESOLVED_AFTER_MS),
    ),
  ]);
  const byDay = <R extends { day: string }>(rows: R[]) => new Map(rows.map((r) => [r.day, r]));
  const m = byDay(messages);
  const r = byDay(resolutions);
  return {
    days,
    messages: {
      visitor: days.map((d) => m.get(d)?.visitor ?? 0),
      ai: days.map((d) => m.get(d)?.ai ?? 0),
      human: days.map((d) => m.get(d)?.human ?? 0),
    },
    resolved: {
      ai: days.map((d) => r.get(d)?.ai ?? 0),
      human: days.map((d) => r.get(d)?.human ?? 0),
    },
  };
}
