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
