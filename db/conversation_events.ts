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
  await sql`
    INSERT INTO conversation_events (workspace_id, conversation_id, type, source, actor_user_id,
      created_at)
    VALUES (${workspaceId}, ${e.conversationId}, ${e.type}, ${e.source}, ${e.actorUserId ?? null},
      ${e.now})`;
}
