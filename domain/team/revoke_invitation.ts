/** Revoke an open invitation: its link stops working and its seat is free again. */
import type { Executor } from "../../db/client.ts";
import { revokeInvitation as revokeRow } from "../../db/invitations.ts";
import { NotFound } from "../errors.ts";

export async function revokeInvitation(
  sql: Executor,
  workspaceId: number,
  id: number,
  now: Date,
): Promise<void> {
  if (!(await revokeRow(sql, workspaceId, id, now))) {
    throw new NotFound("No open invitation with that id.");
  }
}
