/**
 * The columns of a conversation that agents' assistance writes: the latest
 * summary (with intent and tag suggestions) and the attributed revenue.
 */
import type { Executor } from "./client.ts";

export interface StoredTagSuggestion {
  id: number;
  name: string;
  confidence: number;
  reason: string;
}

export async function setConversationSummary(
  sql: Executor,
  workspaceId: number,
  conversationId: number,
  s: { summary: string; intent: string | null; tagSuggestions: StoredTagSuggestion[]; at: Date },
): Promise<void> {
  await sql`
    UPDATE conversations
       SET summary = ${s.summary}, summary_at = ${s.at}, intent = ${s.intent},
           tag_suggestions = ${sql.json(s.tagSuggestions as never)}
     WHERE workspace_id = ${workspaceId} AND id = ${conversationId}`;
}

export interface RevenueRow {
  revenue_cents: string;
  revenue_currency: string;
  revenue_label: string | null;
  revenue_at: Date;
}

export async function setConversationRevenue(
  sql: Executor,
  workspaceId: number,
  publicId: string,
  r: { cents: bigint; currency: string; label: string | null; at: Date },
): Promise<RevenueRow | null> {
  const [row] = await sql<RevenueRow[]>`
    UPDATE conversations
       SET revenue_cents = ${r.cents.toString()}, revenue_currency = ${r.currency},
           revenue_label = ${r.label}, revenue_at = ${r.at}
     WHERE workspace_id = ${workspaceId} AND public_id = ${publicId}
    RETURNING revenue_cents::text, revenue_currency, revenue_label, revenue_at`;
  return row ?? null;
}

export interface RevenueTotal {
  currency: string;
  cents: string;
  conversations: number;
}

/** Revenue attributed in [since, until), per currency. */
export async function revenueByCurrency(
  sql: Executor,
  workspaceId: number,
  since: Date,
  until: Date,
): Promise<RevenueTotal[]> {
  return await sql<RevenueTotal[]>`
    SELECT revenue_currency AS currency, sum(revenue_cents)::text AS cents,
           count(*)::int AS conversations
      FROM conversations
     WHERE workspace_id = ${workspaceId} AND revenue_cents IS NOT NULL
       AND revenue_at >= ${since} AND revenue_at < ${until}
     GROUP BY revenue_currency
     ORDER BY revenue_currency`;
}
