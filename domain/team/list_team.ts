/**
 * The Team screen: members with role, state and last activity, open
 * invitations, seats. Whoever may manage the workspace (owners,
 * administrators) also gets each open invitation's link again, to copy or
 * resend; a viewer sees the invitations without links.
 */
import type { AppDeps } from "../deps.ts";
import type { Auth } from "../auth/tokens.ts";
import { listTeam as listMembers } from "../../db/team.ts";
import { listOpenInvitations } from "../../db/invitations.ts";
import { can } from "../auth/permissions.ts";
import { type Seats, seatsOf } from "./seats.ts";
import type { Role } from "../../db/invitations.ts";
import { recoverInvitationLink } from "./invitation_link.ts";

export interface TeamView {
  members: {
    id: number;
    name: string;
    email: string;
    role: Role;
    state: "active" | "suspended";
    last_active_at: string | null;
    joined_at: string;
  }[];
  invitations: {
    id: number;
    email: string;
    role: Role;
    created_at: string;
    expires_at: string;
    state: "pending" | "expired";
    /** The link, for owners and administrators while it can be used; null otherwise. */
    link: string | null;
    /** Made before links were kept (or APP_KEY changed): only renewing gives a link. */
    link_lost: boolean;
  }[];
  seats: Seats;
  /** SMTP_URL is set: invitations can be e-mailed (and resent). */
  email_enabled: boolean;
}

export async function listTeam(
  deps: Pick<AppDeps, "sql" | "config" | "appKey">,
  auth: Auth,
  now: Date,
): Promise<TeamView> {
  const workspaceId = auth.workspace.id;
  const [members, invitations, seats] = await Promise.all([
    listMembers(deps.sql, workspaceId),
    listOpenInvitations(deps.sql, workspaceId),
    seatsOf(deps.sql, workspaceId, now),
  ]);
  const showLinks = can(auth.user.role, "manage-workspace");
  return {
    members: members.map((m) => ({
      id: Number(m.id),
      name: m.name,
      email: m.email,
      role: m.role,
      state: m.suspended ? "suspended" : "active",
      last_active_at: m.last_active_at?.toISOString() ?? null,
      joined_at: m.created_at.toISOString(),
    })),
    invitations: await Promise.all(invitations.map(async (i) => {
      const pending = i.expires_at.getTime() > now.getTime();
      const link = await recoverInvitationLink(deps, i.secret_encrypted);
      return {
        id: Number(i.id),
        email: i.email,
        role: i.role,
        created_at: i.created_at.toISOString(),
        expires_at: i.expires_at.toISOString(),
        state: pending ? "pending" as const : "expired" as const,
        link: showLinks && pending ? link : null,
        link_lost: link === null,
      };
    })),
    seats,
    email_enabled: Boolean(deps.config.notifications.smtpUrl),
  };
}
