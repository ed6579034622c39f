/** users: people who sign in, each belonging to one workspace. */
import type { Executor } from "./client.ts";

export interface UserRow {
  id: number;
  workspace_id: number;
  name: string;
  email: string;
  password_hash: string;
  role: "owner" | "administrator" | "agent" | "viewer";
  suspended: boolean;
  avatar_url: string | null;
  created_at: Date;
}

/** Login lookup by e-mail: not workspace-scoped, because the e-mail names the workspace. */
export async function findUserByEmail(sql: Executor, email: string): Promise<UserRow | null> {
  const [row] = await sql<UserRow[]>`SELECT * FROM users WHERE email = ${email.toLowerCase()}`;
  return row ?? null;
}

export async function findUser(
  sql: Executor,
  workspaceId: number,
  id: number,
): Promise<UserRow | null> {
  const [row] = await sql<UserRow[]>`
    SELECT * FROM users WHERE workspace_id = ${workspaceId} AND id = ${id}`;
  return row ?? null;
}

export async function insertUser(
  sql: Executor,
  u: {
    workspaceId: number;
    name: string;
    email: string;
    passwordHash: string;
    role: UserRow["role"];
    suspended: boolean;
  },
): Promise<UserRow> {
  const [row] = await sql<UserRow[]>`
    INSERT INTO users (workspace_id, name, email, password_hash, role, suspended)
    VALUES (${u.workspaceId}, ${u.name}, ${u.email.toLowerCase()}, ${u.passwordHash}, ${u.role}, ${u.suspended})
    RETURNING *`;
  return row!;
}

export async function updateUser(
  sql: Executor,
  workspaceId: number,
  id: number,
  u: { name: string; role: UserRow["role"]; suspended: boolean; passwordHash?: string },
): Promise<void> {
  await sql`
    UPDATE users SET name = ${u.name}, role = ${u.role}, suspended = ${u.suspended},
      password_hash = COALESCE(${u.passwordHash ?? null}, password_hash)
     WHERE workspace_id = ${workspaceId} AND id = ${id}`;
}

export async function setUserSuspended(
  sql: Executor,
  workspaceId: number,
  id: number,
  suspended: boolean,
): Promise<void> {
  await sql`UPDATE users SET suspended = ${suspended}
             WHERE workspace_id = ${workspaceId} AND id = ${id}`;
}

/** Name and e-mail (lower-cased); the unique e-mail index refuses a taken one (23505). */
export async function setUserProfile(
  sql: Executor,
  workspaceId: number,
  id: number,
  p: { name: string; email: string },
): Promise<void> {
  await sql`UPDATE users SET name = ${p.name}, email = ${p.email.toLowerCase()}
             WHERE workspace_id = ${workspaceId} AND id = ${id}`;
}

export async function setUserPassword(
  sql: Executor,
  workspaceId: number,
  id: number,
  passwordHash: string,
): Promise<void> {
  await sql`UPDATE users SET password_hash = ${passwordHash}
             WHERE workspace_id = ${workspaceId} AND id = ${id}`;
}
