/** ai_assist_calls: suggested replies and summaries an agent asked for, with tokens and cost. */
import type { Executor } from "./client.ts";

export type AssistKind = "suggestion" | "summary";
export type SuggestionOutcome = "generated" | "inserted" | "edited" | "dismissed";

export interface NewAssistCall {
  chatbotId: number;
  conversationId: number;
  userId: number;
  kind: AssistKind;
  draft?: string | null;
  content: string | null;
  model?: string | null;
  tokensIn?: number;
  tokensOut?: number;
  costMicroCents?: number;
  now: Date;
}

export async function insertAssistCall(
  sql: Executor,
  workspaceId: number,
  c: NewAssistCall,
): Promise<{ id: number }> {
  const [row] = await sql<{ id: number }[]>`
    INSERT INTO ai_assist_calls (workspace_id, chatbot_id, conversation_id, user_id, kind, draft,
      content, model, tokens_in, tokens_out, cost_micro_cents, created_at)
    VALUES (${workspaceId}, ${c.chatbotId}, ${c.conversationId}, ${c.userId}, ${c.kind},
      ${c.draft ?? null}, ${c.content}, ${c.model ?? null}, ${c.tokensIn ?? 0}, ${c.tokensOut ?? 0},
      ${c.costMicroCents ?? 0}, ${c.now})
    RETURNING id`;
  return row!;
}

/** Record a suggestion's outcome; null when no suggestion of the workspace has that id. */
export async function setSuggestionOutcome(
  sql: Executor,
  workspaceId: number,
  id: number,
  outcome: SuggestionOutcome,
  now: Date,
): Promise<{ id: number; outcome: SuggestionOutcome } | null> {
  const [row] = await sql<{ id: number; outcome: SuggestionOutcome }[]>`
    UPDATE ai_assist_calls SET outcome = ${outcome}, outcome_at = ${now}
     WHERE workspace_id = ${workspaceId} AND id = ${id} AND kind = 'suggestion'
    RETURNING id, outcome`;
  return row ?? null;
}

export interface AssistMonthTotals {
  tokens: number;
  cost_micro_cents: string;
}

/** Tokens and cost of the agents' AI calls in [since, until). */
export async function assistMonthTotals(
  sql: Executor,
  workspaceId: number,
  since: Date,
  until: Date,
): Promise<AssistMonthTotals> {
  const [row] = await sql<AssistMonthTotals[]>`
    SELECT COALESCE(sum(tokens_in + tokens_out), 0)::bigint AS tokens,
           COALESCE(sum(cost_micro_cents), 0)::text AS cost_micro_cents
      FROM ai_assist_calls
     WHERE workspace_id = ${workspaceId} AND created_at >= ${since} AND created_at < ${until}`;
  return row!;
}

export interface BotSuggestionCounts {
  public_key: string;
  name: string;
  suggested: number;
  inserted: number;
  edited: number;
  dismissed: number;
}

/** Per bot: suggestions with text in [since, until) and their reported outcomes. */
export async function suggestionCountsByBot(
  sql: Executor,
  workspaceId: number,
  since: Date,
  until: Date,
): Promise<BotSuggestionCounts[]> {
  return await sql<BotSuggestionCounts[]>`
    SELECT b.public_key, b.name,
           count(*)::int AS suggested,
           count(*) FILTER (WHERE a.outcome = 'inserted')::int AS inserted,
           count(*) FILTER (WHERE a.outcome = 'edited')::int AS edited,
           count(*) FILTER (WHERE a.outcome = 'dismissed')::int AS dismissed
      FROM ai_assist_calls a JOIN chatbots b ON b.id = a.chatbot_id
     WHERE a.workspace_id = ${workspaceId} AND a.kind = 'suggestion'
       AND a.content IS NOT NULL AND a.created_at >= ${since} AND a.created_at < ${until}
     GROUP BY b.id, b.public_key, b.name
     ORDER BY b.id`;
}
