/**
 * What the agent did with a suggestion (inserted, edited, dismissed, or
 * `generated` again to undo a report). The latest report wins; the counts
 * feed each bot's acceptance rate in the portal analytics.
 */
import type { Executor } from "../../db/client.ts";
import { setSuggestionOutcome, type SuggestionOutcome } from "../../db/ai_assist_calls.ts";
import { NotFound } from "../errors.ts";

export const OUTCOMES = ["generated", "inserted", "edited", "dismissed"] as const;

export async function reportSuggestionOutcome(
  sql: Executor,
  input: { workspaceId: number; suggestionId: number; outcome: SuggestionOutcome; now: Date },
): Promise<{ id: number; outcome: SuggestionOutcome }> {
  const row = await setSuggestionOutcome(
    sql,
    input.workspaceId,
    input.suggestionId,
    input.outcome,
    input.now,
  );
  if (!row) throw new NotFound("No suggestion with that id in this workspace.");
  return row;
}
