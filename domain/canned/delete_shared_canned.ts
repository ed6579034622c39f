/** Delete a shared canned reply; agents' own replies are theirs and not listed here. */
import type { Executor } from "../../db/client.ts";
import { deleteSharedCanned as deleteRow } from "../../db/canned_replies.ts";
import { NotFound } from "../errors.ts";

export async function deleteSharedCanned(
  sql: Executor,
  workspaceId: number,
  id: number,
): Promise<void> {
  if (!(await deleteRow(sql, workspaceId, id))) {
    throw new NotFound("No shared canned reply with that id.");
  }
}
