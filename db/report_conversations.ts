/**
 * The report's conversation figures (docs/reports.md defines each): started,
 * handed off, resolved (and by whom), first responses after a handoff request,
 * ratings. Counts come grouped by bot and assigned agent, so the domain sums
 * them for the totals and the breakdowns; medians and 90th percentiles cannot
 * be summed, so they come per grouping set ((), bot, agent) and per tag.
 */
import type { Executor } from "./client.ts";
import { conversationsInScope, quarterAligned, type ReportScope } from "./report_scope.ts";

/** Counts of one (bot, agent) pair; `agent` null: nobody assigned. */
export interface PairCounts {
  bot: number;
  agent: number | null;
}

export interface StartedCounts extends PairCounts {
  /** The local hour it started, `YYYY-MM-DDTHH`. */
  hour: string;
  conversations: number;
  handoffs: number;
}

/**
 * Conversations started in the period per local hour, and those of them where
 * a human was asked for (a handoff request is recorded) or took over (a
 * `human_connected` entry in the events log, kept on the row as
 * `human_connected`: migration 0280). Grouped per UTC quarter hour first, so
 * the zone's rules run once per quarter, not once per conversation.
 */
export async function startedConversations(
  sql: Executor,
  s: ReportScope,
  timeZone: string,
): Promise<StartedCounts[]> {
  const quarter = quarterAligned(s) ? sql`report_quarter(c.created_at)` : sql`c.created_at`;
  return await sql<StartedCounts[]>`
    SELECT to_char(date_trunc('hour', q.quarter AT TIME ZONE ${timeZone}), 'YYYY-MM-DD"T"HH24')
             AS hour,
           q.bot, q.agent, sum(q.conversations)::int AS conversations,
           sum(q.handoffs)::int AS handoffs
      FROM (SELECT ${quarter} AS quarter, c.chatbot_id::int AS bot,
                   c.assigned_user_id::int AS agent, count(*) AS conversations,
                   count(*) FILTER (WHERE c.handoff_requested_at IS NOT NULL OR c.human_connected)
                     AS handoffs
              FROM conversations c
             WHERE ${conversationsInScope(sql, s)}
               AND c.created_at >= ${s.since} AND c.created_at < ${s.until}
             GROUP BY 1, 2, 3) q
     GROUP BY 1, 2, 3`;
}

/** Conversations started in the period per tag they carry. */
export async function startedByTag(
  sql: Executor,
  s: ReportScope,
): Promise<{ tag: number; conversations: number }[]> {
  return await sql<{ tag: number; conversations: number }[]>`
    SELECT ct.tag_id::int AS tag, count(*)::int AS conversations
      FROM conversations c JOIN conversation_tags ct ON ct.conversation_id = c.id
     WHERE ${conversationsInScope(sql, s)}
       AND c.created_at >= ${s.since} AND c.created_at < ${s.until}
     GROUP BY ct.tag_id`;
}

/**
 * Conversations resolved in the period, one row each with its resolution
 * time and whether no human wrote in it (`first_human_reply_at`, kept by the
 * agents' replies: migration 0280): closed as resolved (at `resolved_at`), or
 * left with the bot as the overview counts it (no handoff, an AI reply, no
 * human reply, quiet since `quietBefore`; at its last message). Whether the
 * AI has replied is a column kept by the AI's message statement (migration
 * 0295), so this reads the conversations and nothing else: a probe of a
 * rolled-up table per quiet conversation was most of the statement's time.
 * Plain conditions, not EXISTS subqueries: the planner costed those per row,
 * the statement's cost crossed PostgreSQL's JIT thresholds, and compiling
 * took about 0.7 s a run (measured: 1,050 ms with JIT, 345 ms without).
 */
function resolvedRows(sql: Executor, s: ReportScope, quietBefore: Date) {
  return sql`
    SELECT c.id, c.chatbot_id, c.assigned_user_id, c.resolved_at AS at, true AS closed,
           extract(epoch FROM c.resolved_at - c.created_at)::float8 AS secs,
           c.first_human_reply_at IS NULL AS by_ai
      FROM conversations c
     WHERE ${conversationsInScope(sql, s)} AND c.status = 'closed' AND c.resolution = 'resolved'
       AND c.resolved_at >= ${s.since} AND c.resolved_at < ${s.until}
    UNION ALL
    SELECT c.id, c.chatbot_id, c.assigned_user_id, c.last_message_at, false,
           extract(epoch FROM c.last_message_at - c.created_at)::float8, true
      FROM conversations c
     WHERE ${conversationsInScope(sql, s)} AND c.status = 'bot' AND c.handoff_state = 'bot_active'
       AND c.last_message_at >= ${s.since} AND c.last_message_at < ${s.until}
       AND c.last_message_at < ${quietBefore} AND c.first_human_reply_at IS NULL
       AND c.ai_replied`;
}

/** Which grouping set a row belongs to: the whole scope, one bot, one agent, one tag, one hour. */
export type GroupKind = "all" | "bot" | "agent" | "tag" | "hour";

export interface DurationStats {
  kind: GroupKind;
  /** The bot's, agent's or tag's id; null for "all" and "hour" (and "agent": nobody assigned). */
  id: number | null;
  /** "hour" rows: the local hour, and which resolutions they count. */
  hour: string | null;
  by_ai: boolean | null;
  closed: boolean | null;
  /** Rows in the group (conversations resolved, or handoff requests). */
  n: number;
  /** Rows with a duration (resolved by the AI; requests a human answered). */
  m: number;
  median: number | null;
  p90: number | null;
}

const QUARTER = "date_bin('15 minutes', at, TIMESTAMPTZ '2000-01-01 00:00:00+00')";

/**
 * One statement over the rows, materialised once: n, m (a flag's count) and
 * the percentiles of `secs` over () and per assigned agent (the rows nobody
 * is assigned to are sorted once, for the whole); n and m per bot and per
 * quarter hour (labelled by its local hour) by `by_ai` and `closed` (no
 * percentiles: no table shows them, so a hash groups them, not a sort); and
 * n, m, percentiles per tag. `totalsOnly` (the previous period, which shows
 * its headline figures only): () and the counts by `by_ai` and `closed`
 * (as "hour" rows without an hour), from one pass.
 */
async function durationStats(
  sql: Executor,
  rows: ReturnType<typeof resolvedRows>,
  flag: "by_ai" | "secs IS NOT NULL",
  timeZone: string,
  totalsOnly: boolean,
): Promise<DurationStats[]> {
  const m = sql.unsafe(flag);
  const stats = sql`count(*)::int AS n, count(*) FILTER (WHERE ${m})::int AS m,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY secs) AS median,
           percentile_cont(0.9) WITHIN GROUP (ORDER BY secs) AS p90`;
  if (totalsOnly) {
    return await sql<DurationStats[]>`
      WITH r AS MATERIALIZED (SELECT secs, by_ai, closed FROM (${rows}) x)
      SELECT 'all' AS kind, NULL::int AS id, NULL AS hour, NULL::boolean AS by_ai,
             NULL::boolean AS closed, ${stats}
        FROM r
      UNION ALL
      SELECT 'hour', NULL, NULL, by_ai, closed, count(*)::int, count(*) FILTER (WHERE ${m})::int,
             NULL, NULL
        FROM r GROUP BY by_ai, closed`;
  }
  const counts = sql`count(*)::int AS n, count(*) FILTER (WHERE ${m})::int AS m,
           NULL::float8 AS median, NULL::float8 AS p90`;
  return await sql<DurationStats[]>`
    WITH r AS MATERIALIZED (
      SELECT id, chatbot_id, assigned_user_id, secs, by_ai, closed,
             ${sql.unsafe(QUARTER)} AS quarter
        FROM (${rows}) x
    )
    SELECT 'all' AS kind, NULL::int AS id, NULL AS hour, NULL::boolean AS by_ai,
           NULL::boolean AS closed, ${stats}
      FROM r
    UNION ALL
    SELECT 'agent', assigned_user_id::int, NULL, NULL, NULL, ${stats}
      FROM r WHERE assigned_user_id IS NOT NULL
     GROUP BY assigned_user_id
    UNION ALL
    SELECT CASE WHEN GROUPING(quarter) = 0 THEN 'hour' ELSE 'bot' END,
           chatbot_id::int,
           CASE WHEN GROUPING(quarter) = 0 THEN
             to_char(date_trunc('hour', quarter AT TIME ZONE ${timeZone}), 'YYYY-MM-DD"T"HH24')
           END,
           by_ai, closed, ${counts}
      FROM r
     GROUP BY GROUPING SETS ((chatbot_id), (quarter, by_ai, closed))
    UNION ALL
    SELECT 'tag', ct.tag_id::int, NULL, NULL, NULL, ${stats}
      FROM r JOIN conversation_tags ct ON ct.conversation_id = r.id
     GROUP BY ct.tag_id`;
}

/**
 * Resolutions in the period: n resolved, m of them with no human message,
 * resolution times; and per local hour of the resolution.
 */
export async function resolutionStats(
  sql: Executor,
  s: ReportScope,
  quietBefore: Date,
  timeZone: string,
  totalsOnly = false,
): Promise<DurationStats[]> {
  const rows = resolvedRows(sql, s, quietBefore);
  return await durationStats(sql, rows, "by_ai", timeZone, totalsOnly);
}

/**
 * Handoff requests made in the period (a conversation's latest request), n;
 * m of them answered by a human message at or after the request; the wait
 * until that first human message (`first_response_at`, kept by the agents'
 * replies and the requests: migration 0280).
 */
export async function firstResponseStats(
  sql: Executor,
  s: ReportScope,
  timeZone: string,
  totalsOnly = false,
): Promise<DurationStats[]> {
  const rows = sql`
    SELECT c.id, c.chatbot_id, c.assigned_user_id, c.handoff_requested_at AS at,
           false AS closed,
           extract(epoch FROM c.first_response_at - c.handoff_requested_at)::float8 AS secs,
           false AS by_ai
      FROM conversations c
     WHERE ${conversationsInScope(sql, s)}
       AND c.handoff_requested_at >= ${s.since} AND c.handoff_requested_at < ${s.until}`;
  return await durationStats(sql, rows, "secs IS NOT NULL", timeZone, totalsOnly);
}

export interface RatingCounts extends PairCounts {
  rating: number;
  n: number;
}

/** Ratings given in the period, per bot, agent and score. */
export async function ratingCounts(sql: Executor, s: ReportScope): Promise<RatingCounts[]> {
  return await sql<RatingCounts[]>`
    SELECT c.chatbot_id::int AS bot, c.assigned_user_id::int AS agent, c.rating, count(*)::int AS n
      FROM conversations c
     WHERE ${conversationsInScope(sql, s)} AND c.rating IS NOT NULL
       AND c.rated_at >= ${s.since} AND c.rated_at < ${s.until}
     GROUP BY c.chatbot_id, c.assigned_user_id, c.rating`;
}
