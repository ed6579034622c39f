/**
 * Send an open invitation's link again by e-mail (SMTP_URL set), unchanged:
 * same link, same expiry. An expired invitation, or one made before links
 * were kept, is renewed instead (inviting the address again).
 */
import type { AppDeps } from "../deps.ts";
import type { Auth } from "../auth/tokens.ts";
import { findOpenInvitation } from "../../db/invitations.ts";
import { roleDisplayName } from "../auth/permissions.ts";
import { actorOf, recordAudit } from "../audit/record_audit.ts";
import { Invalid, NotConfigured, NotFound, Unavailable } from "../errors.ts";
import { recoverInvitationLink } from "./invitation_link.ts";
import { mailInvitation } from "./invitation_mail.ts";

export async function resendInvitation(
  deps: AppDeps,
  auth: Auth,
  input: { id: number; ip: string | null },
  now: Date,
): Promise<{ message: string }> {
  if (!deps.config.notifications.smtpUrl) {
    throw new NotConfigured(
      "E-mail is not set up on this server (SMTP_URL): copy the link and send it yourself.",
    );
  }
  const row = await findOpenInvitation(deps.sql, auth.workspace.id, input.id);
  if (!row) throw new NotFound("No open invitation with that id.");
  const link = await recoverInvitationLink(deps, row.secret_encrypted);
  if (!link || row.expires_at.getTime() <= now.getTime()) {
    throw Invalid.field(
      "invitation",
      "This invitation's link has expired or cannot be shown again: renew it to get a new one.",
    );
  }
  const sent = await mailInvitation(deps, {
    to: row.email,
    inviter: auth.user.name,
    workspace: auth.workspace.name,
    role: roleDisplayName(row.role),
    link,
    expiresAt: row.expires_at,
  });
  if (!sent) throw new Unavailable("The e-mail could not be sent; try again in a minute.", 60);
  await recordAudit(deps.sql, {
    workspaceId: auth.workspace.id,
    actor: actorOf(auth, input.ip),
    action: "team.invitation_sent",
    target: { type: "invitation", id: Number(row.id) },
    details: { email: row.email, role: row.role, resent: true },
    now,
  });
  return { message: `Invitation e-mailed again to ${row.email}.` };
}
