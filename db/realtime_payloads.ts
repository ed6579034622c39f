/** What realtime broadcasts load by id: one note, with its conversation's public id. */
import type { Executor } from "./client.ts";

export interface BroadcastNoteRow {
  id: number;
  body: string;
  author: string | null;
  created_at: Date;
  conversation_public_id: string;
}

export async function findBroadcastNote(
  sql: Executor,
  workspaceId: number,
  noteId: number,
): Promise<BroadcastNoteRow | null> {
  const [row] = await sql<BroadcastNoteRow[]>`
    SELECT n.id, n.body, u.name AS author, n.created_at, c.public_id AS conversation_public_id
      FROM conversation_notes n
      JOIN conversations c ON c.id = n.conversation_id
      LEFT JOIN users u ON u.id = n.author_user_id
     WHERE n.workspace_id = ${workspaceId} AND n.id = ${noteId}`;
  return row ?? null;
}
