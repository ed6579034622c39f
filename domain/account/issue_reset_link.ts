/**
 * An owner or administrator issues a reset link for a member (Team), for a
 * server without SMTP or a member without their mailbox: the link is returned
 * once to pass on, valid one hour, single use. Not for oneself (the profile
 * changes one's own password), and an administrator cannot for an owner.
 */
import type { AppDeps } from "../deps.ts";
import { findUser } from "../../db/users.ts";
import type { Auth } from "../auth/tokens.ts";
import { actorOf, recordAudit } from "../audit/record_audit.ts";
import { Invalid, NotFound } from "../errors.ts";
import { roleRank } from "./member_rank.ts";
import { appForRole, newResetSecret, resetLink, storeResetLink } from "./reset_links.ts";

export async function issueResetLink(
  deps: Pick<AppDeps, "sql" | "config">,
  auth: Auth,
  userId: number,
  ip: string,
  now: Date,
): Promise<{ link: string; expires_at: string }> {
  const { secret, hash } = await newResetSecret();
  return await deps.sql.begin(async (tx) => {
    const member = await findUser(tx, auth.workspace.id, userId);
    if (!member) throw new NotFound("No teammate with that id.");
    if (Number(member.id) === auth.user.id) {
      throw Invalid.field("user", "Change your own password from your profile.");
    }
    if (roleRank(member.role) > roleRank(auth.user.role)) {
      throw Invalid.field("user", "Only an owner can issue a reset link for an owner.");
    }
    const expiresAt = await storeResetLink(tx, {
      workspaceId: auth.workspace.id,
      userId,
      hash,
      now,
    });
    await recordAudit(tx, {
      workspaceId: auth.workspace.id,
      actor: actorOf(auth, ip),
      action: "auth.password_reset_requested",
      target: { type: "user", id: userId },
      details: { by: "team" },
      now,
    });
    return {
      link: resetLink(deps.config.baseUrl, appForRole(member.role), secret),
      expires_at: expiresAt.toISOString(),
    };
  });
}
