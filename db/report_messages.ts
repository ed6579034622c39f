/**
 * The report's message figures: messages of the period by author, per local
 * hour of the report's time zone and per bot, with the AI's tokens and cost.
 * The domain folds the hours into the series, the totals and the weekday ×
 * hour heat map.
 *
 * Read from `report_message_quarters` (migration 0250: counts per UTC quarter
 * hour, bot, assigned member and role, kept exact by triggers on every write),
 * so a month is some thousands of rows, not a million messages. Every zone's
 * offset is a whole number of quarters, so each quarter lies in one local
 * hour. A tag is not part of that key (a conversation has several): with the
 * tag filter the messages of the tagged conversations are counted directly.
 */
import type { Executor } from "./client.ts";
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

/** Per UTC quarter hour, bot and role, from the maintained counts. */
function quarterCounts(sql: Executor, s: ReportScope) {
  const bot = s.chatbotId === undefined ? sql`` : sql`AND q.chatbot_id = ${s.chatbotId}`;
  const agent = s.assigneeId === undefined ? sql`` : sql`AND q.assignee_id = ${s.assigneeId}`;
  return sql`
    SELECT q.quarter, q.chatbot_id::int AS bot, q.role, sum(q.n) AS n, sum(q.tokens) AS tokens,
           sum(q.cost_micro_cents) AS cost_micro_cents
      FROM report_message_quarters q
     WHERE q.workspace_id = ${s.workspaceId} AND q.n > 0 ${bot} ${agent}
       AND q.quarter >= ${s.since} AND q.quarter < ${s.until}
     GROUP BY 1, 2, 3`;
}

/** The same, counted from the messages of the conversations in scope (the tag filter). */
function messageCounts(sql: Executor, s: ReportScope) {
  return sql`
    SELECT report_quarter(m.created_at) AS quarter, c.chatbot_id::int AS bot, m.role,
           count(*) AS n, sum(m.tokens_in + m.tokens_out) AS tokens,
           sum(m.cost_micro_cents) AS cost_micro_cents
      FROM messages m JOIN conversations c ON c.id = m.conversation_id
     WHERE m.workspace_id = ${s.workspaceId} AND ${conversationsInScope(sql, s)}
       AND m.created_at >= ${s.since} AND m.created_at < ${s.until}
     GROUP BY 1, 2, 3`;
}

export async function hourlyMessages(
  sql: Executor,
  s: ReportScope,
  timeZone: string,
): Promise<HourlyMessages[]> {
  const quarters = s.tagId === undefined && quarterAligned(s)
    ? quarterCounts(sql, s)
    : messageCounts(sql, s);
  return await sql<HourlyMessages[]>`
    SELECT to_char(date_trunc('hour', q.quarter AT TIME ZONE ${timeZone}), 'YYYY-MM-DD"T"HH24')
             AS hour,
           q.bot, q.role, sum(q.n)::int AS n, sum(q.tokens)::text AS tokens,
           sum(q.cost_micro_cents)::text AS cost_micro_cents
      FROM (${quarters}) q
     GROUP BY 1, 2, 3`;
}
