/**
 * The report's commerce and assistance figures over a period, narrowed by the
 * same filters as the rest (through each row's conversation): products shown
 * with AI replies and clicked, agents' AI suggestions and how many were used,
 * the agents' AI calls' tokens and cost per bot, revenue per currency.
 */
import type { Executor } from "./client.ts";
import { conversationsInScope, type ReportScope } from "./report_scope.ts";

export interface ExtraTotals {
  recommendations_shown: number;
  recommendations_clicked: number;
  suggestions: number;
  suggestions_accepted: number;
}

export async function extraTotals(sql: Executor, s: ReportScope): Promise<ExtraTotals> {
  const scope = conversationsInScope(sql, s);
  const [row] = await sql<ExtraTotals[]>`
    SELECT
      (SELECT count(*)::int FROM product_recommendations p JOIN conversations c
                                 ON c.id = p.conversation_id
        WHERE p.workspace_id = ${s.workspaceId} AND ${scope}
          AND p.created_at >= ${s.since} AND p.created_at < ${s.until}) AS recommendations_shown,
      (SELECT count(*)::int FROM product_recommendations p JOIN conversations c
                                 ON c.id = p.conversation_id
        WHERE p.workspace_id = ${s.workspaceId} AND ${scope} AND p.clicked_at IS NOT NULL
          AND p.clicked_at >= ${s.since} AND p.clicked_at < ${s.until}) AS recommendations_clicked,
      (SELECT count(*)::int FROM ai_assist_calls a JOIN conversations c
                                 ON c.id = a.conversation_id
        WHERE a.workspace_id = ${s.workspaceId} AND ${scope} AND a.kind = 'suggestion'
          AND a.content IS NOT NULL
          AND a.created_at >= ${s.since} AND a.created_at < ${s.until}) AS suggestions,
      (SELECT count(*)::int FROM ai_assist_calls a JOIN conversations c
                                 ON c.id = a.conversation_id
        WHERE a.workspace_id = ${s.workspaceId} AND ${scope} AND a.kind = 'suggestion'
          AND a.content IS NOT NULL AND a.outcome IN ('inserted', 'edited')
          AND a.created_at >= ${s.since} AND a.created_at < ${s.until}) AS suggestions_accepted`;
  return row!;
}

/** Tokens and cost (micro-cents, exact decimal strings) of agents' AI calls, per bot. */
export async function assistUsageByBot(
  sql: Executor,
  s: ReportScope,
): Promise<{ bot: number; tokens: string; cost_micro_cents: string }[]> {
  return await sql<{ bot: number; tokens: string; cost_micro_cents: string }[]>`
    SELECT c.chatbot_id::int AS bot, sum(a.tokens_in + a.tokens_out)::text AS tokens,
           sum(a.cost_micro_cents)::text AS cost_micro_cents
      FROM ai_assist_calls a JOIN conversations c ON c.id = a.conversation_id
     WHERE a.workspace_id = ${s.workspaceId} AND ${conversationsInScope(sql, s)}
       AND a.created_at >= ${s.since} AND a.created_at < ${s.until}
     GROUP BY c.chatbot_id`;
}

/** Revenue attributed in the period, per currency (cents exact, as decimal strings). */
export async function revenueInScope(
  sql: Executor,
  s: ReportScope,
): Promise<{ currency: string; cents: string; conversations: number }[]> {
  return await sql<{ currency: string; cents: string; conversations: number }[]>`
    SELECT c.revenue_currency AS currency, sum(c.revenue_cents)::text AS cents,
           count(*)::int AS conversations
      FROM conversations c
     WHERE ${conversationsInScope(sql, s)} AND c.revenue_cents IS NOT NULL
       AND c.revenue_at >= ${s.since} AND c.revenue_at < ${s.until}
     GROUP BY c.revenue_currency
     ORDER BY c.revenue_currency`;
}
