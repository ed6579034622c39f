/** conversation_events: the log of who changed a conversation's ownership, and when. */
import type { Executor } from "./client.ts";

export type EventSource = "agent" | "visitor" | "ai" | "system";

export async function logConversationEvent(
  sql: Executor,
  workspaceId: number,
  e: {
    conversationId: number;
    type: string;
    source: EventSource;
    actorUserId?: number | null;
    now: Date;
  },
): Promise<void> {
  const insert = sql`
    INSERT INTO conversation_events (workspace_id, conversation_id, type, source, actor_user_id,
      created_at)
    VALUES (${workspaceId}, ${e.conversationId}, ${e.type}, ${e.source}, ${e.actorUserId ?? null},
      ${e.now})`;
  if (e.type !== "human_connected") {
    await insert;
    return;
  }
  // A person took the conversation: the reports' handoff figure reads it from the row
  // (migration 0280), not by searching the events. Agents' actions only.
  await sql`
    WITH e AS (${insert} RETURNING conversation_id)
    UPDATE conversations SET human_connected = true
     WHERE id = (SELECT conversation_id FROM e) AND NOT human_connected`;
}
