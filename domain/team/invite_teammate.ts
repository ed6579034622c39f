/**
 * Invite a teammate by e-mail with a role, within the plan's seats. An address
 * that already has an open invitation gets that invitation renewed (new
 * secret, so the old link stops working; new expiry; the role given) rather
 * than a refusal. The link is single-use and expires after 7 days; its secret
 * is kept as a hash (to find it) and encrypted (to show it again on the Team
 * screen). With SMTP_URL the link goes by e-mail after commit and is not in
 * the answer; without SMTP, or when the mail cannot be sent, it is.
 * Only an owner may invite an owner.
 */
import type { AppDeps } from "../deps.ts";
import type { Auth } from "../auth/tokens.ts";
import { findUserByEmail } from "../../db/users.ts";
import {
  insertInvitation,
  type InvitationRow,
  lockOpenInvitationOf,
  renewInvitation,
  type Role,
} from "../../db/invitations.ts";
import { roleDisplayName } from "../auth/permissions.ts";
import { actorOf, recordAudit } from "../audit/record_audit.ts";
import { Forbidden, Invalid } from "../errors.ts";
import { requireFreeSeat, takesSeat } from "./seats.ts";
import { INVITATION_LIFETIME_MS, invitationLink, newInvitationSecret } from "./invitation_link.ts";
import { mailInvitation } from "./invitation_mail.ts";

export { INVITATION_LIFETIME_MS };

export interface InvitationResult {
  invitation: { id: number; email: string; role: string; expires_at: string };
  /** True when an open invitation of the address was renewed instead of a new one made. */
  renewed: boolean;
  emailed: boolean;
  /** The link when it was not e-mailed; null when it was (it stays on the Team screen). */
  link: string | null;
}

export async function inviteTeammate(
  deps: AppDeps,
  auth: Auth,
  input: { email: string; role: Role; ip: string | null },
  now: Date,
): Promise<InvitationResult> {
  const email = input.email.toLowerCase();
  if (input.role === "owner" && auth.user.role !== "owner") {
    throw new Forbidden("Only an owner can invite an owner.");
  }
  if (await findUserByEmail(deps.sql, email)) {
    throw Invalid.field("email", "That address already has a Parley account.");
  }
  const fresh = await newInvitationSecret(deps.appKey);
  const expiresAt = new Date(now.getTime() + INVITATION_LIFETIME_MS);
  const link = { role: input.role, ...fresh, invitedBy: auth.user.id, expiresAt, now };
  const { row, renewed } = await deps.sql.begin(async (tx) => {
    const open = await lockOpenInvitationOf(tx, auth.workspace.id, email);
    if (takesSeat(input.role) && !holdsSeat(open, now)) {
      await requireFreeSeat(tx, auth.workspace.id, now, "role");
    }
    const row = open
      ? await renewInvitation(tx, Number(open.id), link)
      : await insertInvitation(tx, { workspaceId: auth.workspace.id, email, ...link });
    // Another request invited the same address in between: one of the two wins.
    if (!row) throw Invalid.field("email", "That address was invited a moment ago.");
    await recordAudit(tx, {
      workspaceId: auth.workspace.id,
      actor: actorOf(auth, input.ip),
      action: "team.invitation_sent",
      target: { type: "invitation", id: Number(row.id) },
      details: { email, role: input.role, renewed: open !== null },
      now,
    });
    return { row, renewed: open !== null };
  });
  const url = invitationLink(deps, fresh.secret);
  const emailed = await mailInvitation(deps, {
    to: email,
    inviter: auth.user.name,
    workspace: auth.workspace.name,
    role: roleDisplayName(input.role),
    link: url,
    expiresAt,
  });
  return {
    invitation: {
      id: Number(row.id),
      email,
      role: row.role,
      expires_at: row.expires_at.toISOString(),
    },
    renewed,
    emailed,
    link: emailed ? null : url,
  };
}

/** An invitation that already counts among the seats: usable, for a role that takes one. */
function holdsSeat(open: InvitationRow | null, now: Date): boolean {
  return open !== null && takesSeat(open.role) && open.expires_at.getTime() > now.getTime();
}
