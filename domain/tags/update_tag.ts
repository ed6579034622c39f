/**
 * Rename or recolour a tag. Conversations carry the tag by id, so they show
 * the new name and colour at once; a name in use by another tag is refused.
 */
import type { Executor } from "../../db/client.ts";
import { findTag, type TagRow, updateTag as updateTagRow } from "../../db/tags.ts";
import { Invalid, NotFound } from "../errors.ts";

export async function updateTag(
  sql: Executor,
  workspaceId: number,
  input: { id: number; name?: string; color?: string },
): Promise<TagRow> {
  const current = await findTag(sql, workspaceId, input.id);
  if (!current) throw new NotFound("No tag with that id.");
  const name = input.name ?? current.name;
  const color = input.color ?? current.color;
  const tag = await updateTagRow(sql, workspaceId, input.id, name, color);
  if (tag) return tag;
  if (await findTag(sql, workspaceId, input.id)) {
    throw Invalid.field("name", `A tag named "${name}" already exists.`);
  }
  throw new NotFound("No tag with that id.");
}
