/** conversation_watchers: agents following a conversation (alerts, the `watching` flag). */
import type { Executor } from "./client.ts";

export async function setWatcher(
  sql: Executor,
  conversationId: number,
  userId: number,
  watching: boolean,
  now: Date,
): Promise<boolean> {
  const rows = watching
    ? await sql`
        INSERT INTO conversation_watchers (conversation_id, user_id, created_at)
        VALUES (${conversationId}, ${userId}, ${now})
        ON CONFLICT DO NOTHING RETURNING 1`
    : await sql`
        DELETE FROM conversation_watchers
         WHERE conversation_id = ${conversationId} AND user_id = ${userId} RETURNING 1`;
  return rows.length > 0;
}
