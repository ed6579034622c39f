/**
 * The report's message figures: messages of the period by author, per local
 * hour of the report's time zone and per bot, with the AI's tokens and cost.
 * The domain folds the hours into the series, the totals and the weekday ×
 * hour heat map.
 *
 * Counted per UTC quarter hour first (every zone's offset since 1980 is a
 * whole number of quarters, so each quarter lies in one local hour and the
 * zone's rules run once per quarter). The whole workspace or one bot: from
 * `report_message_quarters` (migration 0280, rolled up by a job below a
 * watermark) plus the messages above the watermark, in one snapshot, so the
 * figures are exact whatever the job has done. A report by an agent or by a
 * tag reads the same rollup per assignee and per tag (migration 0300, whose
 * triggers move a conversation's rolled-up messages when it is reassigned,
 * tagged or untagged); one by an agent and a tag at once counts its
 * conversations' messages directly.
 */
import type { Executor, Sql } from "./client.ts";
import { conversationsInScope, quarterAligned, type ReportScope } from "./report_scope.ts";

export interface HourlyMessages {
  /** The local hour, `YYYY-MM-DDTHH`. */
  hour: string;
  bot: number;
  role: "visitor" | "assistant" | "agent";
  n: number;
  tokens: string;
  /** Exact sum of micro-cents, as a decimal string. */
  cost_micro_cents: string;
}

/** Messages of the conversations in scope, per quarter (or instant), bot and role. */
function messageCounts(sql: Executor, s: ReportScope, aboveId: number, bin: boolean) {
  const above = aboveId > 0 ? sql`AND m.id > ${aboveId}` : sql``;
  return sql`
    SELECT ${bin ? sql`report_quarter(m.created_at)` : sql`m.created_at`} AS quarter,
           c.chatbot_id::int AS bot, m.role, count(*) AS n,
           sum(m.tokens_in + m.tokens_out) AS tokens, sum(m.cost_micro_cents) AS cost_micro_cents
      FROM messages m JOIN conversations c ON c.id = m.conversation_id
     WHERE m.workspace_id = ${s.workspaceId} AND ${conversationsInScope(sql, s)}
       AND m.created_at >= ${s.since} AND m.created_at < ${s.until} ${above}
     GROUP BY 1, 2, 3`;
}

/**
 * The rolled-up rows of the period (ids up to the watermark): the bot rollup
 * for the whole workspace or one bot, the assignee's or the tag's rows
 * (migration 0300) for a report by an agent or a tag.
 */
function rolledUp(sql: Executor, s: ReportScope) {
  const bot = s.chatbotId === undefined ? sql`` : sql`AND q.chatbot_id = ${s.chatbotId}`;
  const period = sql`q.quarter >= ${s.since} AND q.quarter < ${s.until}`;
  const columns =
    sql`q.quarter, q.chatbot_id::int AS bot, q.role, q.n, q.tokens, q.cost_micro_cents`;
  if (s.assigneeId === undefined && s.tagId === undefined) {
    return sql`
      SELECT ${columns} FROM report_message_quarters q
       WHERE q.workspace_id = ${s.workspaceId} AND q.n <> 0 ${bot} AND ${period}`;
  }
  const [scope, id] = s.assigneeId !== undefined ? ["agent", s.assigneeId] : ["tag", s.tagId!];
  return sql`
    SELECT ${columns} FROM report_scope_quarters q
     WHERE q.workspace_id = ${s.workspaceId} AND q.scope = ${scope} AND q.scope_id = ${id}
       AND q.n <> 0 ${bot} AND ${period}`;
}

/** The rolled-up rows of the period, and the messages above the watermark. */
function rolledUpAndTail(sql: Executor, s: ReportScope, watermark: number) {
  return sql`${rolledUp(sql, s)} UNION ALL ${messageCounts(sql, s, watermark, true)}`;
}

function byLocalHour(sql: Executor, quarters: ReturnType<typeof messageCounts>, tz: string) {
  return sql<HourlyMessages[]>`
    SELECT to_char(date_trunc('hour', q.quarter AT TIME ZONE ${tz}), 'YYYY-MM-DD"T"HH24') AS hour,
           q.bot, q.role, sum(q.n)::int AS n, sum(q.tokens)::text AS tokens,
           sum(q.cost_micro_cents)::text AS cost_micro_cents
      FROM (${quarters}) q
     GROUP BY 1, 2, 3`;
}

export async function hourlyMessages(
  sql: Executor,
  s: ReportScope,
  timeZone: string,
): Promise<HourlyMessages[]> {
  const aligned = quarterAligned(s);
  // The rollup has no row for an agent and a tag at once: that report counts its messages.
  if ((s.assigneeId !== undefined && s.tagId !== undefined) || !aligned) {
    return await byLocalHour(sql, messageCounts(sql, s, 0, aligned), timeZone);
  }
  // One snapshot for the watermark, the rolled-up rows and the tail: a round of the job (or a
  // deletion's subtraction) committing in between is then seen whole or not at all. The
  // watermark travels as a value, so the tail's plan is a range of the primary key.
  const read = async (tx: Executor) => {
    const [st] = await tx<{ watermark: number }[]>`
      SELECT watermark FROM report_rollup_state WHERE id = 1`;
    return await byLocalHour(tx, rolledUpAndTail(tx, s, Number(st!.watermark)), timeZone);
  };
  if (!("begin" in sql)) return await read(sql);
  return await (sql as Sql).begin(
    "ISOLATION LEVEL REPEATABLE READ READ ONLY",
    read,
  ) as HourlyMessages[];
}
