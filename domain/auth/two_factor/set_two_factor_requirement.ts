/**
 * An owner requires (or stops requiring) two-factor sign-in of every member
 * of the workspace. Members without it are asked to enrol at their next
 * sign-in; sessions already open are left as they are. The owner must have
 * it on first, so the rule is never set by someone it would lock out.
 */
import type { Sql } from "../../../db/client.ts";
import type { Auth } from "../tokens.ts";
import { findTwoFactorState, setWorkspaceRequirement } from "../../../db/two_factor.ts";
import { actorOf, recordAudit } from "../../audit/record_audit.ts";
import { Forbidden, Invalid } from "../../errors.ts";

export async function setTwoFactorRequirement(
  sql: Sql,
  auth: Auth,
  input: { required: boolean; ip: string; now: Date },
): Promise<void> {
  if (auth.user.role !== "owner") {
    throw new Forbidden("Only an owner can change the workspace's two-factor requirement.");
  }
  if (input.required && !(await findTwoFactorState(sql, auth.user.id)).enabledAt) {
    throw Invalid.field(
      "required",
      "Turn two-factor sign-in on for your own account before requiring it of the workspace.",
    );
  }
  await sql.begin(async (tx) => {
    await setWorkspaceRequirement(tx, auth.workspace.id, input.required);
    await recordAudit(tx, {
      workspaceId: auth.workspace.id,
      actor: actorOf(auth, input.ip),
      action: "workspace.settings_changed",
      details: { require_two_factor: input.required },
      now: input.now,
    });
  });
}
