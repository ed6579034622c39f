/**
 * Delete a tag from the catalogue: every conversation that carried it loses
 * it (the attachment rows go with it); conversations are otherwise untouched.
 */
import type { Executor } from "../../db/client.ts";
import { deleteTag as deleteTagRow } from "../../db/tags.ts";
import { NotFound } from "../errors.ts";

export async function deleteTag(sql: Executor, workspaceId: number, id: number): Promise<void> {
  if (!(await deleteTagRow(sql, workspaceId, id))) throw new NotFound("No tag with that id.");
}
