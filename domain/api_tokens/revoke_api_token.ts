/** Revokes one of the account's settings tokens: its next request answers 401. */
import type { Sql } from "../../db/client.ts";
import { revokeOwnToken } from "../../db/tokens.ts";
import type { Auth } from "../auth/tokens.ts";
import { type AuditActor, recordAudit } from "../audit/record_audit.ts";
import { NotFound } from "../errors.ts";

export async function revokeApiToken(
  sql: Sql,
  auth: Auth,
  id: number,
  now: Date,
  actor: AuditActor,
): Promise<void> {
  const revoked = await sql.begin(async (tx) => {
    if (!(await revokeOwnToken(tx, auth.workspace.id, auth.user.id, "api", id, now))) return false;
    await recordAudit(tx, {
      workspaceId: auth.workspace.id,
      actor,
      action: "api_token.revoked",
      target: { type: "api_token", id },
      now,
    });
    return true;
  });
  if (!revoked) throw new NotFound("No API token with that id.");
}
