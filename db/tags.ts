/** tags: the workspace's tag catalogue. */
import type { Executor } from "./client.ts";

export interface TagRow {
  id: number;
  name: string;
  color: string;
}

export async function upsertTag(
  sql: Executor,
  workspaceId: number,
  name: string,
  color: string,
): Promise<TagRow> {
  const [row] = await sql<TagRow[]>`
    INSERT INTO tags (workspace_id, name, color) VALUES (${workspaceId}, ${name}, ${color})
    ON CONFLICT (workspace_id, name) DO UPDATE SET color = EXCLUDED.color
    RETURNING id, name, color`;
  return row!;
}

export async function listTags(sql: Executor, workspaceId: number): Promise<TagRow[]> {
  return await sql<TagRow[]>`
    SELECT id, name, color FROM tags WHERE workspace_id = ${workspaceId} ORDER BY name`;
}

export async function findTag(
  sql: Executor,
  workspaceId: number,
  id: number,
): Promise<TagRow | null> {
  const [row] = await sql<TagRow[]>`
    SELECT id, name, color FROM tags WHERE workspace_id = ${workspaceId} AND id = ${id}`;
  return row ?? null;
}

/** Attach (idempotent): the tag keeps the source it was first attached with. */
export async function attachTag(
  sql: Executor,
  conversationId: number,
  tagId: number,
  source: string,
): Promise<boolean> {
  const rows = await sql`
    INSERT INTO conversation_tags (conversation_id, tag_id, source)
    VALUES (${conversationId}, ${tagId}, ${source})
    ON CONFLICT DO NOTHING RETURNING 1`;
  return rows.length > 0;
}

export async function detachTag(
  sql: Executor,
  conversationId: number,
  tagId: number,
): Promise<boolean> {
  const rows = await sql`
    DELETE FROM conversation_tags WHERE conversation_id = ${conversationId} AND tag_id = ${tagId}
    RETURNING 1`;
  return rows.length > 0;
}
