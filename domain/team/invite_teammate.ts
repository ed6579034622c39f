/**
 * Invite a teammate by e-mail with a role, within the plan's seats. The link
 * is single-use and expires after 7 days; its secret is stored only as a
 * hash. With SMTP_URL the link goes by e-mail (after commit) and is not shown;
 * without SMTP, or when the mail cannot be sent, it is returned once for the
 * inviter to pass on.
 */
import type { AppDeps } from "../deps.ts";
import type { Auth } from "../auth/tokens.ts";
import { findUserByEmail } from "../../db/users.ts";
import { insertInvitation, type Role } from "../../db/invitations.ts";
import { randomSecret, sha256Hex } from "../auth/secrets.ts";
import { createMailSender } from "../notifications/mail_sender.ts";
import { roleDisplayName } from "../auth/permissions.ts";
import { Invalid } from "../errors.ts";
import { requireFreeSeat, takesSeat } from "./seats.ts";

export const INVITATION_LIFETIME_MS = 7 * 24 * 3600 * 1000;

export interface InvitationResult {
  invitation: { id: number; email: string; role: string; expires_at: string };
  emailed: boolean;
  /** The link, shown this once when it was not e-mailed; null when it was. */
  link: string | null;
}

export async function inviteTeammate(
  deps: AppDeps,
  auth: Auth,
  input: { email: string; role: Role },
  now: Date,
): Promise<InvitationResult> {
  const email = input.email.toLowerCase();
  if (await findUserByEmail(deps.sql, email)) {
    throw Invalid.field("email", "That address already has a Parley account.");
  }
  const secret = randomSecret(32);
  const invitation = await deps.sql.begin(async (tx) => {
    if (takesSeat(input.role)) await requireFreeSeat(tx, auth.workspace.id, now, "role");
    const row = await insertInvitation(tx, {
      workspaceId: auth.workspace.id,
      email,
      role: input.role,
      secretHash: await sha256Hex(secret),
      invitedBy: auth.user.id,
      expiresAt: new Date(now.getTime() + INVITATION_LIFETIME_MS),
      now,
    });
    if (!row) {
      throw Invalid.field("email", "That address already has an open invitation: revoke it first.");
    }
    return row;
  });
  const link = `${deps.config.baseUrl}/dashboard#/invitation/${secret}`;
  const emailed = await sendInvitation(deps, {
    to: email,
    inviter: auth.user.name,
    workspace: auth.workspace.name,
    role: roleDisplayName(input.role),
    link,
  });
  return {
    invitation: {
      id: Number(invitation.id),
      email,
      role: invitation.role,
      expires_at: invitation.expires_at.toISOString(),
    },
    emailed,
    link: emailed ? null : link,
  };
}

async function sendInvitation(
  deps: AppDeps,
  m: { to: string; inviter: string; workspace: string; role: string; link: string },
): Promise<boolean> {
  const { smtpUrl, mailFrom } = deps.config.notifications;
  if (!smtpUrl) return false;
  const mailer = createMailSender(smtpUrl, mailFrom);
  try {
    await mailer.send({
      to: m.to,
      subject: `${m.inviter} invited you to ${m.workspace} on Parley`,
      text: [
        `${m.inviter} invited you to join ${m.workspace} on Parley as ${m.role}.`,
        "",
        "Choose your password here (the link works once and expires in 7 days):",
        m.link,
      ].join("\n"),
    });
    return true;
  } catch (err) {
    deps.log.warn("invitation e-mail not sent; the link is shown to the inviter", {
      error: err instanceof Error ? err.message : String(err),
    });
    return false;
  } finally {
    mailer.close();
  }
}
