/** The team screen's reads and writes on users: members with their last activity, roles, removal. */
import type { Executor } from "./client.ts";
import type { UserRow } from "./users.ts";

export interface TeamMemberRow {
  id: number;
  name: string;
  email: string;
  role: UserRow["role"];
  suspended: boolean;
  created_at: Date;
  /** The latest use of any of the member's tokens (written at most once a minute). */
  last_active_at: Date | null;
}

export async function listTeam(sql: Executor, workspaceId: number): Promise<TeamMemberRow[]> {
  return await sql<TeamMemberRow[]>`
    SELECT u.id, u.name, u.email, u.role, u.suspended, u.created_at,
           (SELECT max(t.last_used_at) FROM access_tokens t WHERE t.user_id = u.id)
             AS last_active_at
      FROM users u
     WHERE u.workspace_id = ${workspaceId}
     ORDER BY u.name, u.id`;
}

/** Owners able to sign in (not suspended), read under a lock so the last one stays. */
export async function lockActiveOwners(sql: Executor, workspaceId: number): Promise<number[]> {
  const rows = await sql<{ id: number }[]>`
    SELECT id FROM users
     WHERE workspace_id = ${workspaceId} AND role = 'owner' AND NOT suspended
     FOR UPDATE`;
  return rows.map((r) => Number(r.id));
}

export async function setUserRole(
  sql: Executor,
  workspaceId: number,
  id: number,
  role: UserRow["role"],
): Promise<void> {
  await sql`UPDATE users SET role = ${role} WHERE workspace_id = ${workspaceId} AND id = ${id}`;
}

/**
 * Removes a member: their tokens, push subscriptions, preferences and own
 * canned replies go with them; conversations they were assigned become
 * unassigned, and their messages and notes stay, without an author.
 */
export async function deleteUser(sql: Executor, workspaceId: number, id: number): Promise<void> {
  await sql`DELETE FROM users WHERE workspace_id = ${workspaceId} AND id = ${id}`;
}
