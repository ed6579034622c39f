/**
 * Monthly figures of a workspace for the portal: conversations, messages by
 * author, tokens, cost, and the quota counter; plus the bot the embed snippet uses.
 */
import type { Executor } from "./client.ts";

export interface MonthTotals {
  conversations: number;
  ai_replies: number;
  human_replies: number;
  visitor_messages: number;
  tokens: number;
  /** Exact sum, as a decimal string: a bigint sum may exceed 2^53 micro-cents. */
  cost_micro_cents: string;
}

export async function monthTotals(
  sql: Executor,
  workspaceId: number,
  since: Date,
  until: Date,
): Promise<MonthTotals> {
  const [conv] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM conversations
     WHERE workspace_id = ${workspaceId} AND created_at >= ${since} AND created_at < ${until}`;
  const [msg] = await sql<Omit<MonthTotals, "conversations">[]>`
    SELECT count(*) FILTER (WHERE role = 'assistant')::int AS ai_replies,
           count(*) FILTER (WHERE role = 'agent')::int AS human_replies,
           count(*) FILTER (WHERE role = 'visitor')::int AS visitor_messages,
           COALESCE(sum(tokens_in + tokens_out), 0)::bigint AS tokens,
           COALESCE(sum(cost_micro_cents), 0)::text AS cost_micro_cents
      FROM messages
     WHERE workspace_id = ${workspaceId} AND created_at >= ${since} AND created_at < ${until}`;
  return { conversations: conv!.n, ...msg! };
}

/** Messages counted against the plan this month (0 before the first one). */
export async function messagesUsed(
  sql: Executor,
  workspaceId: number,
  month: Date,
): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    SELECT messages_used AS n FROM usage_counters
     WHERE workspace_id = ${workspaceId} AND month = ${month.toISOString().slice(0, 10)}::date`;
  return row?.n ?? 0;
}

export async function countChatbots(sql: Executor, workspaceId: number): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM chatbots WHERE workspace_id = ${workspaceId}`;
  return row!.n;
}

/** The first active bot (oldest first), else the most recently created one. */
export async function findSnippetBot(
  sql: Executor,
  workspaceId: number,
): Promise<{ public_key: string } | null> {
  const [row] = await sql<{ public_key: string }[]>`
    SELECT public_key FROM chatbots WHERE workspace_id = ${workspaceId}
     ORDER BY is_active DESC,
              CASE WHEN is_active THEN id END ASC,
              created_at DESC, id DESC
     LIMIT 1`;
  return row ?? null;
}
