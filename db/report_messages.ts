/**
 * The report's message figures: messages of the period by author, per local
 * hour of the report's time zone and per bot, with the AI's tokens and cost.
 * One grouped pass; the domain folds the hours into the series, the totals
 * and the weekday × hour heat map.
 */
import type { Executor } from "./client.ts";
import { conversationsInScope, type ReportScope } from "./report_scope.ts";

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

export async function hourlyMessages(
  sql: Executor,
  s: ReportScope,
  timeZone: string,
): Promise<HourlyMessages[]> {
  // Quarter hours in UTC first (every zone's offset is a whole number of quarters), so the
  // zone's rules run once per quarter, not once per message.
  return await sql<HourlyMessages[]>`
    SELECT to_char(date_trunc('hour', q.quarter AT TIME ZONE ${timeZone}), 'YYYY-MM-DD"T"HH24')
             AS hour,
           q.bot, q.role, sum(q.n)::int AS n, sum(q.tokens)::text AS tokens,
           sum(q.cost_micro_cents)::text AS cost_micro_cents
      FROM (SELECT date_bin('15 minutes', m.created_at, TIMESTAMPTZ '2000-01-01 00:00:00+00')
                     AS quarter,
                   c.chatbot_id::int AS bot, m.role, count(*) AS n,
                   sum(m.tokens_in + m.tokens_out) AS tokens,
                   sum(m.cost_micro_cents) AS cost_micro_cents
              FROM messages m JOIN conversations c ON c.id = m.conversation_id
             WHERE m.workspace_id = ${s.workspaceId} AND ${conversationsInScope(sql, s)}
               AND m.created_at >= ${s.since} AND m.created_at < ${s.until}
             GROUP BY 1, 2, 3) q
     GROUP BY 1, 2, 3`;
}
