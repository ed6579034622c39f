/** Revoke an open invitation: its link stops working and its seat is free again. */
import type { AppDeps } from "../deps.ts";
import type { Auth } from "../auth/tokens.ts";
import { revokeInvitation as revokeRow } from "../../db/invitations.ts";
import { actorOf, recordAudit } from "../audit/record_audit.ts";
import { NotFound } from "../errors.ts";

export async function revokeInvitation(
  deps: Pick<AppDeps, "sql">,
  auth: Auth,
  input: { id: number; ip: string | null },
  now: Date,
): Promise<void> {
  await deps.sql.begin(async (tx) => {
    const row = await revokeRow(tx, auth.workspace.id, input.id, now);
    if (!row) throw new NotFound("No open invitation with that id.");
    await recordAudit(tx, {
      workspaceId: auth.workspace.id,
      actor: actorOf(auth, input.ip),
      action: "team.invitation_revoked",
      target: { type: "invitation", id: Number(row.id) },
      details: { email: row.email, role: row.role },
      now,
    });
  });
}
