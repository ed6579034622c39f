/** Add a tag to the workspace's catalogue (dashboard); a name already in use is refused. */
import type { Executor } from "../../db/client.ts";
import { insertTag, type TagRow } from "../../db/tags.ts";
import { Invalid } from "../errors.ts";

export async function createTag(
  sql: Executor,
  workspaceId: number,
  input: { name: string; color: string },
): Promise<TagRow> {
  const tag = await insertTag(sql, workspaceId, input.name, input.color);
  if (!tag) throw Invalid.field("name", `A tag named "${input.name}" already exists.`);
  return tag;
}
