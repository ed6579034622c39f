/** sla_breaches: conversations that waited for a human past their workspace's threshold. */
import type { Executor } from "./client.ts";

export interface NewBreach {
  workspace_id: number;
  conversation_id: string;
  chatbot_id: number;
  waiting_since: Date;
}

/**
 * Record every wait that crossed its threshold and was not recorded yet, and
 * return those: the primary key (conversation, start of the wait) makes the
 * breach one row, so concurrent checks on several instances raise it once.
 */
export async function recordNewBreaches(
  sql: Executor,
  defaultMinutes: number,
): Promise<NewBreach[]> {
  return await sql<NewBreach[]>`
    WITH due AS (
      SELECT c.id, c.public_id, c.workspace_id, c.chatbot_id, c.handoff_requested_at
        FROM conversations c
        JOIN workspaces w ON w.id = c.workspace_id AND NOT w.suspended
       WHERE c.handoff_state = 'handoff_pending' AND c.status <> 'closed'
         AND c.handoff_requested_at IS NOT NULL
         AND c.handoff_requested_at
             < now() - make_interval(mins => COALESCE(w.sla_breach_minutes, ${defaultMinutes}))),
    fresh AS (
      INSERT INTO sla_breaches (conversation_id, waiting_since, workspace_id)
      SELECT id, handoff_requested_at, workspace_id FROM due
      ON CONFLICT DO NOTHING
      RETURNING conversation_id)
    SELECT due.workspace_id, due.public_id::text AS conversation_id, due.chatbot_id,
           due.handoff_requested_at AS waiting_since
      FROM fresh JOIN due ON due.id = fresh.conversation_id`;
}
