/** password_resets: single-use reset links, the secret kept only as SHA-256. */
import type { Executor } from "./client.ts";

export interface PasswordResetRow {
  id: number;
  workspace_id: number;
  user_id: number;
  expires_at: Date;
}

export async function insertPasswordReset(
  sql: Executor,
  r: { workspaceId: number; userId: number; secretHash: string; expiresAt: Date; now: Date },
): Promise<void> {
  await sql`
    INSERT INTO password_resets (workspace_id, user_id, secret_hash, expires_at, created_at)
    VALUES (${r.workspaceId}, ${r.userId}, ${r.secretHash}, ${r.expiresAt}, ${r.now})`;
}

/**
 * Spend a usable link (unused, unexpired) and return it; null when there is
 * none. One UPDATE, so two concurrent uses cannot both succeed.
 */
export async function spendPasswordReset(
  sql: Executor,
  secretHash: string,
  now: Date,
): Promise<PasswordResetRow | null> {
  const [row] = await sql<PasswordResetRow[]>`
    UPDATE password_resets SET used_at = ${now}
     WHERE secret_hash = ${secretHash} AND used_at IS NULL AND expires_at > ${now}
    RETURNING id::int AS id, workspace_id::int AS workspace_id, user_id::int AS user_id, expires_at`;
  return row ?? null;
}

/** A new link replaces the user's earlier ones: only the latest works. */
export async function spendOpenResetsOfUser(
  sql: Executor,
  userId: number,
  now: Date,
): Promise<void> {
  await sql`UPDATE password_resets SET used_at = ${now}
             WHERE user_id = ${userId} AND used_at IS NULL`;
}
