/** conversation_notes: agents' private notes on a conversation, never shown to the visitor. */
import type { Executor } from "./client.ts";

export interface NoteRow {
  id: number;
  body: string;
  author_user_id: number | null;
  created_at: Date;
}

export async function insertNote(
  sql: Executor,
  workspaceId: number,
  n: { conversationId: number; authorUserId: number; body: string; now: Date },
): Promise<NoteRow> {
  const [row] = await sql<NoteRow[]>`
    INSERT INTO conversation_notes (workspace_id, conversation_id, author_user_id, body, created_at)
    VALUES (${workspaceId}, ${n.conversationId}, ${n.authorUserId}, ${n.body}, ${n.now})
    RETURNING id, body, author_user_id, created_at`;
  return row!;
}
