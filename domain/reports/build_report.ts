/**
 * A workspace's report over a period (docs/reports.md): the headline figures
 * beside the previous period's of the same length, the charts' series, the
 * busiest hours, and the per agent, bot and tag tables. The bot, agent and
 * tag filters are checked like the history's (another workspace's is 422 on
 * its field). Read-only: several grouped queries, nothing written; message
 * counts come from the rollup below its watermark and from the messages above
 * it (db/report_messages.ts), so they are exact whatever the job has done.
 */
import type { Executor } from "../../db/client.ts";
import type { ReportScope } from "../../db/report_scope.ts";
import {
  firstResponseStats,
  ratingCounts,
  resolutionStats,
  startedByTag,
  startedConversations,
} from "../../db/report_conversations.ts";
import { hourlyMessages } from "../../db/report_messages.ts";
import { assistUsageByBot, extraTotals, revenueInScope } from "../../db/report_extras.ts";
import { reportLabels } from "../../db/report_labels.ts";
import { resolveHistoryFilter } from "../history/history_filter.ts";
import { AI_RESOLVED_AFTER_MS } from "../dashboard/usage_series.ts";
import { bucketLabels, previousPeriod, type ReportPeriod, reportPeriod } from "./report_period.ts";
import { type FigureRows, foldFigures, type ReportFigures } from "./report_figures.ts";
import { type Breakdowns, foldBreakdowns } from "./report_breakdowns.ts";
import { busiestHours, foldSeries, type ReportSeries } from "./report_series.ts";

export interface ReportInput {
  from: string;
  to: string;
  time_zone?: string;
  bot?: string;
  agent?: string;
  tag?: string;
}

interface PeriodOut {
  from: string;
  to: string;
  since: string;
  until: string;
}

export interface Report extends Breakdowns {
  period: PeriodOut & { time_zone: string; granularity: "hour" | "day" };
  previous_period: PeriodOut;
  filters: { bot: string | null; agent: number | null; tag: number | null };
  figures: ReportFigures;
  previous: ReportFigures;
  series: ReportSeries;
  /** Visitor messages per weekday (0 = Monday) × hour (0-23), local time. */
  busiest_hours: number[][];
}

/** The filters as ids of this workspace, or Invalid naming the field. */
async function scopeOf(
  sql: Executor,
  workspaceId: number,
  input: ReportInput,
): Promise<Omit<ReportScope, "since" | "until">> {
  const f = await resolveHistoryFilter(sql, workspaceId, {
    bot: input.bot,
    agent: input.agent,
    tag: input.tag,
  });
  return {
    workspaceId,
    chatbotId: f.chatbotId,
    assigneeId: typeof f.assignee === "number" ? f.assignee : undefined,
    tagId: f.tagId,
  };
}

/** The rows of a period; `totalsOnly` for the previous period (its headline figures only). */
async function figureRows(
  sql: Executor,
  s: ReportScope,
  timeZone: string,
  quietBefore: Date,
  totalsOnly = false,
): Promise<FigureRows> {
  const [
    started,
    messages,
    resolutions,
    firstResponses,
    ratings,
    extras,
    assist,
    revenue,
  ] = await Promise.all([
    startedConversations(sql, s, timeZone),
    hourlyMessages(sql, s, timeZone),
    resolutionStats(sql, s, quietBefore, timeZone, totalsOnly),
    firstResponseStats(sql, s, timeZone, totalsOnly),
    ratingCounts(sql, s),
    extraTotals(sql, s),
    assistUsageByBot(sql, s),
    revenueInScope(sql, s),
  ]);
  return {
    started,
    messages,
    resolutions,
    firstResponses,
    ratings,
    extras,
    assist,
    revenue,
  };
}

const periodOut = (p: ReportPeriod): PeriodOut => ({
  from: p.from,
  to: p.to,
  since: p.since.toISOString(),
  until: p.until.toISOString(),
});

export async function buildReport(
  sql: Executor,
  workspaceId: number,
  input: ReportInput,
  now: Date,
): Promise<Report> {
  const period = reportPeriod(input);
  const previous = previousPeriod(period);
  const scope = await scopeOf(sql, workspaceId, input);
  const quietBefore = new Date(now.getTime() - AI_RESOLVED_AFTER_MS);
  const current = { ...scope, since: period.since, until: period.until };
  const [rows, before, tagStarted, labels] = await Promise.all([
    figureRows(sql, current, period.timeZone, quietBefore),
    figureRows(
      sql,
      { ...scope, since: previous.since, until: previous.until },
      period.timeZone,
      quietBefore,
      true,
    ),
    startedByTag(sql, current),
    reportLabels(sql, workspaceId),
  ]);
  return {
    period: { ...periodOut(period), time_zone: period.timeZone, granularity: period.granularity },
    previous_period: periodOut(previous),
    filters: {
      bot: input.bot ?? null,
      agent: scope.assigneeId ?? null,
      tag: scope.tagId ?? null,
    },
    figures: foldFigures(rows),
    previous: foldFigures(before),
    series: foldSeries(rows, bucketLabels(period), period.granularity === "hour"),
    busiest_hours: busiestHours(rows),
    ...foldBreakdowns(rows, tagStarted, labels),
  };
}
