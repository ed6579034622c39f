/**
 * The report's charts: every bucket of the period (local days, or hours for a
 * single day) with zeros where nothing happened, and the weekday × hour heat
 * map of visitor messages in the report's time zone (Monday first, hours 0-23).
 */
import type { FigureRows } from "./report_figures.ts";

export interface ReportSeries {
  buckets: string[];
  conversations: number[];
  visitor_messages: number[];
  ai_replies: number[];
  human_replies: number[];
  resolved_by_ai: number[];
  resolved_by_human: number[];
}

export function foldSeries(rows: FigureRows, buckets: string[], hourly: boolean): ReportSeries {
  const index = new Map(buckets.map((b, i) => [b, i]));
  const bucketOf = (hour: string) => index.get(hourly ? hour : hour.slice(0, 10));
  const zeros = () => buckets.map(() => 0);
  const series: ReportSeries = {
    buckets,
    conversations: zeros(),
    visitor_messages: zeros(),
    ai_replies: zeros(),
    human_replies: zeros(),
    resolved_by_ai: zeros(),
    resolved_by_human: zeros(),
  };
  const add = (list: number[], hour: string, n: number) => {
    const i = bucketOf(hour);
    if (i !== undefined) list[i]! += n;
  };
  for (const r of rows.started) add(series.conversations, r.hour, r.conversations);
  for (const m of rows.messages) {
    const list = m.role === "visitor"
      ? series.visitor_messages
      : m.role === "assistant"
      ? series.ai_replies
      : series.human_replies;
    add(list, m.hour, m.n);
  }
  for (const r of rows.resolutions) {
    if (r.kind !== "hour") continue;
    add(r.by_ai ? series.resolved_by_ai : series.resolved_by_human, r.hour!, r.n);
  }
  return series;
}

/** Visitor messages per local weekday (0 = Monday) and hour. */
export function busiestHours(rows: FigureRows): number[][] {
  const grid = Array.from({ length: 7 }, () => Array.from({ length: 24 }, () => 0));
  for (const m of rows.messages) {
    if (m.role !== "visitor") continue;
    const day = new Date(`${m.hour.slice(0, 10)}T00:00:00Z`).getUTCDay();
    grid[(day + 6) % 7]![Number(m.hour.slice(11, 13))]! += m.n;
  }
  return grid;
}
