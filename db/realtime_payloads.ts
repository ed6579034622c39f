/** What realtime broadcasts load by id: one message or one note, with its conversation's public id. */
import type { Executor } from "./client.ts";
import type { MessageRole } from "./messages.ts";

export interface BroadcastMessageRow {
  id: number;
  role: MessageRole;
  content: string;
  created_at: Date;
  conversation_public_id: string;
}

export async function findBroadcastMessage(
  sql: Executor,
  workspaceId: number,
  messageId: number,
): Promise<BroadcastMessageRow | null> {
  const [row] = await sql<BroadcastMessageRow[]>`
    SELECT m.id, m.role, m.content, m.created_at, c.public_id AS conversation_public_id
      FROM messages m JOIN conversations c ON c.id = m.conversation_id
     WHERE m.workspace_id = ${workspaceId} AND m.id = ${messageId}`;
  return row ?? null;
}

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
