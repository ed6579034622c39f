/** invitations: a teammate invited by e-mail, until the link is used, revoked or expired. */
import type { Executor } from "./client.ts";
import type { UserRow } from "./users.ts";

export type Role = UserRow["role"];

export interface InvitationRow {
  id: number;
  workspace_id: number;
  email: string;
  role: Role;
  created_at: Date;
  expires_at: Date;
}

/** A new invitation; null when the address already has one open in the workspace. */
export async function insertInvitation(
  sql: Executor,
  i: {
    workspaceId: number;
    email: string;
    role: Role;
    secretHash: string;
    invitedBy: number;
    expiresAt: Date;
    now: Date;
  },
): Promise<InvitationRow | null> {
  const [row] = await sql<InvitationRow[]>`
    INSERT INTO invitations (workspace_id, email, role, secret_hash, invited_by, created_at,
                             expires_at)
    VALUES (${i.workspaceId}, ${i.email}, ${i.role}, ${i.secretHash}, ${i.invitedBy}, ${i.now},
            ${i.expiresAt})
    ON CONFLICT (workspace_id, email) WHERE accepted_at IS NULL AND revoked_at IS NULL DO NOTHING
    RETURNING id, workspace_id, email, role, created_at, expires_at`;
  return row ?? null;
}

/** Invitations neither used nor revoked (expired ones included, shown as such). */
export async function listOpenInvitations(
  sql: Executor,
  workspaceId: number,
): Promise<InvitationRow[]> {
  return await sql<InvitationRow[]>`
    SELECT id, workspace_id, email, role, created_at, expires_at FROM invitations
     WHERE workspace_id = ${workspaceId} AND accepted_at IS NULL AND revoked_at IS NULL
     ORDER BY created_at DESC, id DESC`;
}

/** Non-viewer invitations still usable: they hold a seat until used or revoked. */
export async function countSeatInvitations(
  sql: Executor,
  workspaceId: number,
  now: Date,
): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM invitations
     WHERE workspace_id = ${workspaceId} AND role <> 'viewer' AND accepted_at IS NULL
       AND revoked_at IS NULL AND expires_at > ${now}`;
  return row!.n;
}

export interface UsableInvitation extends InvitationRow {
  workspace_name: string;
}

/** The invitation a link names, while it can still be used; locked when `forUpdate`. */
export async function findUsableInvitation(
  sql: Executor,
  secretHash: string,
  now: Date,
  forUpdate = false,
): Promise<UsableInvitation | null> {
  const lock = forUpdate ? sql`FOR UPDATE OF i` : sql``;
  const [row] = await sql<UsableInvitation[]>`
    SELECT i.id, i.workspace_id, i.email, i.role, i.created_at, i.expires_at,
           w.name AS workspace_name
      FROM invitations i JOIN workspaces w ON w.id = i.workspace_id
     WHERE i.secret_hash = ${secretHash} AND i.accepted_at IS NULL AND i.revoked_at IS NULL
       AND i.expires_at > ${now} AND NOT w.suspended
     ${lock}`;
  return row ?? null;
}

export async function markInvitationAccepted(sql: Executor, id: number, now: Date) {
  await sql`UPDATE invitations SET accepted_at = ${now} WHERE id = ${id}`;
}

export async function revokeInvitation(
  sql: Executor,
  workspaceId: number,
  id: number,
  now: Date,
): Promise<boolean> {
  const rows = await sql`
    UPDATE invitations SET revoked_at = ${now}
     WHERE workspace_id = ${workspaceId} AND id = ${id} AND accepted_at IS NULL
       AND revoked_at IS NULL
    RETURNING 1`;
  return rows.length > 0;
}
