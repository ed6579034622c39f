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

export interface TagUseRow extends TagRow {
  /** Conversations carrying the tag. */
  conversations: number;
}

/** The catalogue with how many conversations carry each tag, in one statement. */
export async function listTagsWithUse(sql: Executor, workspaceId: number): Promise<TagUseRow[]> {
  return await sql<TagUseRow[]>`
    SELECT t.id, t.name, t.color, count(ct.conversation_id)::int AS conversations
      FROM tags t LEFT JOIN conversation_tags ct ON ct.tag_id = t.id
     WHERE t.workspace_id = ${workspaceId}
     GROUP BY t.id ORDER BY t.name`;
}

/** A new tag, or null when the workspace already has one of that name. */
export async function insertTag(
  sql: Executor,
  workspaceId: number,
  name: string,
  color: string,
): Promise<TagRow | null> {
  const [row] = await sql<TagRow[]>`
    INSERT INTO tags (workspace_id, name, color) VALUES (${workspaceId}, ${name}, ${color})
    ON CONFLICT (workspace_id, name) DO NOTHING
    RETURNING id, name, color`;
  return row ?? null;
}

/**
 * Rename and recolour; null when the tag is not the workspace's, or when
 * another of its tags already has the name (the caller tells which).
 */
export async function updateTag(
  sql: Executor,
  workspaceId: number,
  id: number,
  name: string,
  color: string,
): Promise<TagRow | null> {
  const [row] = await sql<TagRow[]>`
    UPDATE tags SET name = ${name}, color = ${color}
     WHERE workspace_id = ${workspaceId} AND id = ${id}
       AND NOT EXISTS (SELECT 1 FROM tags o
                        WHERE o.workspace_id = ${workspaceId} AND o.name = ${name} AND o.id <> ${id})
    RETURNING id, name, color`;
  return row ?? null;
}

/** Deletes the tag; conversations lose it (conversation_tags cascade). False when not found. */
export async function deleteTag(sql: Executor, workspaceId: number, id: number): Promise<boolean> {
  const rows = await sql`DELETE FROM tags WHERE workspace_id = ${workspaceId} AND id = ${id}
                         RETURNING 1`;
  return rows.length > 0;
}
