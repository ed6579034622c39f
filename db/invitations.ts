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
  /** The link's secret under APP_KEY; null for invitations made before 0220. */
  secret_encrypted: string | null;
}

const COLUMNS = "id, workspace_id, email, role, created_at, expires_at, secret_encrypted";

/** A fresh link for an invitation: its secret's hash, the secret encrypted, who sent it. */
export interface InvitationLink {
  role: Role;
  secretHash: string;
  secretEncrypted: string;
  invitedBy: number;
  expiresAt: Date;
  now: Date;
}

/** A new invitation; null when the address already has one open in the workspace. */
export async function insertInvitation(
  sql: Executor,
  i: InvitationLink & { workspaceId: number; email: string },
): Promise<InvitationRow | null> {
  const [row] = await sql<InvitationRow[]>`
    INSERT INTO invitations (workspace_id, email, role, secret_hash, secret_encrypted,
                             invited_by, created_at, expires_at)
    VALUES (${i.workspaceId}, ${i.email}, ${i.role}, ${i.secretHash}, ${i.secretEncrypted},
            ${i.invitedBy}, ${i.now}, ${i.expiresAt})
    ON CONFLICT (workspace_id, email) WHERE accepted_at IS NULL AND revoked_at IS NULL DO NOTHING
    RETURNING ${sql.unsafe(COLUMNS)}`;
  return row ?? null;
}

/** The open (unused, unrevoked, possibly expired) invitation of an address, locked. */
export async function lockOpenInvitationOf(
  sql: Executor,
  workspaceId: number,
  email: string,
): Promise<InvitationRow | null> {
  const [row] = await sql<InvitationRow[]>`
    SELECT ${sql.unsafe(COLUMNS)} FROM invitations
     WHERE workspace_id = ${workspaceId} AND email = ${email} AND accepted_at IS NULL
       AND revoked_at IS NULL
     FOR UPDATE`;
  return row ?? null;
}

/** An open invitation by id (expired ones included). */
export async function findOpenInvitation(
  sql: Executor,
  workspaceId: number,
  id: number,
): Promise<InvitationRow | null> {
  const [row] = await sql<InvitationRow[]>`
    SELECT ${sql.unsafe(COLUMNS)} FROM invitations
     WHERE workspace_id = ${workspaceId} AND id = ${id} AND accepted_at IS NULL
       AND revoked_at IS NULL`;
  return row ?? null;
}

/**
 * Renew an open invitation in place: a new secret (the old link stops
 * working, its hash being replaced), a new expiry, the role given.
 */
export async function renewInvitation(
  sql: Executor,
  id: number,
  i: InvitationLink,
): Promise<InvitationRow> {
  const [row] = await sql<InvitationRow[]>`
    UPDATE invitations
       SET role = ${i.role}, secret_hash = ${i.secretHash},
           secret_encrypted = ${i.secretEncrypted}, invited_by = ${i.invitedBy},
           created_at = ${i.now}, expires_at = ${i.expiresAt}
     WHERE id = ${id}
    RETURNING ${sql.unsafe(COLUMNS)}`;
  return row!;
}

/** Invitations neither used nor revoked (expired ones included, shown as such). */
export async function listOpenInvitations(
  sql: Executor,
  workspaceId: number,
): Promise<InvitationRow[]> {
  return await sql<InvitationRow[]>`
    SELECT ${sql.unsafe(COLUMNS)} FROM invitations
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
           i.secret_encrypted, w.name AS workspace_name
      FROM invitations i JOIN workspaces w ON w.id = i.workspace_id
     WHERE i.secret_hash = ${secretHash} AND i.accepted_at IS NULL AND i.revoked_at IS NULL
       AND i.expires_at > ${now} AND NOT w.suspended
     ${lock}`;
  return row ?? null;
}

/** Spent: the encrypted secret goes too, nothing needs the link any more. */
export async function markInvitationAccepted(sql: Executor, id: number, now: Date) {
  await sql`UPDATE invitations SET accepted_at = ${now}, secret_encrypted = NULL
             WHERE id = ${id}`;
}

/** Revoked: its link stops working and its encrypted secret is dropped. */
export async function revokeInvitation(
  sql: Executor,
  workspaceId: number,
  id: number,
  now: Date,
): Promise<Pick<InvitationRow, "id" | "email" | "role"> | null> {
  const [row] = await sql<Pick<InvitationRow, "id" | "email" | "role">[]>`
    UPDATE invitations SET revoked_at = ${now}, secret_encrypted = NULL
     WHERE workspace_id = ${workspaceId} AND id = ${id} AND accepted_at IS NULL
       AND revoked_at IS NULL
    RETURNING id, email, role`;
  return row ?? null;
}
