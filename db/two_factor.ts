/**
 * users' two-factor columns, two_factor_recovery_codes, and the workspace's
 * requirement (migration 0210). Secrets arrive here already encrypted.
 */
import type { Executor } from "./client.ts";

export interface TwoFactorState {
  /** Encrypted secret (AES-GCM under APP_KEY); null when never started. */
  secret: string | null;
  enabledAt: Date | null;
  lastStep: number | null;
}

export async function findTwoFactorState(sql: Executor, userId: number): Promise<TwoFactorState> {
  const [row] = await sql<
    { two_factor_secret: string | null; two_factor_enabled_at: Date | null; last: string | null }[]
  >`SELECT two_factor_secret, two_factor_enabled_at, two_factor_last_step::text AS last
      FROM users WHERE id = ${userId}`;
  return {
    secret: row?.two_factor_secret ?? null,
    enabledAt: row?.two_factor_enabled_at ?? null,
    lastStep: row?.last == null ? null : Number(row.last),
  };
}

/** A new, not yet confirmed secret (enrolment start): replaces an unconfirmed one only. */
export async function storePendingSecret(
  sql: Executor,
  userId: number,
  encryptedSecret: string,
): Promise<void> {
  await sql`UPDATE users SET two_factor_secret = ${encryptedSecret}, two_factor_last_step = NULL
             WHERE id = ${userId} AND two_factor_enabled_at IS NULL`;
}

export async function markEnabled(sql: Executor, userId: number, now: Date): Promise<void> {
  await sql`UPDATE users SET two_factor_enabled_at = ${now} WHERE id = ${userId}`;
}

export async function clearTwoFactor(sql: Executor, userId: number): Promise<void> {
  await sql`UPDATE users SET two_factor_secret = NULL, two_factor_enabled_at = NULL,
              two_factor_last_step = NULL WHERE id = ${userId}`;
  await sql`DELETE FROM two_factor_recovery_codes WHERE user_id = ${userId}`;
}

/**
 * Record `step` as used, only when it is newer than the last one: false when
 * the step (or a later one) was already used, so two concurrent requests with
 * one code cannot both pass.
 */
export async function claimStep(sql: Executor, userId: number, step: number): Promise<boolean> {
  const rows = await sql`
    UPDATE users SET two_factor_last_step = ${step}
     WHERE id = ${userId} AND (two_factor_last_step IS NULL OR two_factor_last_step < ${step})
     RETURNING id`;
  return rows.length === 1;
}

export async function replaceRecoveryCodes(
  sql: Executor,
  userId: number,
  hashes: string[],
): Promise<void> {
  await sql`DELETE FROM two_factor_recovery_codes WHERE user_id = ${userId}`;
  for (const hash of hashes) {
    await sql`INSERT INTO two_factor_recovery_codes (user_id, code_hash) VALUES (${userId}, ${hash})`;
  }
}

/** Spend an unused recovery code; false when none matches (or it was used). */
export async function useRecoveryCode(
  sql: Executor,
  userId: number,
  hash: string,
  now: Date,
): Promise<boolean> {
  const rows = await sql`
    UPDATE two_factor_recovery_codes SET used_at = ${now}
     WHERE user_id = ${userId} AND code_hash = ${hash} AND used_at IS NULL
     RETURNING id`;
  return rows.length === 1;
}

export async function countUnusedRecoveryCodes(sql: Executor, userId: number): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM two_factor_recovery_codes
     WHERE user_id = ${userId} AND used_at IS NULL`;
  return row?.n ?? 0;
}

export async function workspaceRequiresTwoFactor(
  sql: Executor,
  workspaceId: number,
): Promise<boolean> {
  const [row] = await sql<{ require_two_factor: boolean }[]>`
    SELECT require_two_factor FROM workspaces WHERE id = ${workspaceId}`;
  return row?.require_two_factor ?? false;
}

export async function setWorkspaceRequirement(
  sql: Executor,
  workspaceId: number,
  required: boolean,
): Promise<void> {
  await sql`UPDATE workspaces SET require_two_factor = ${required} WHERE id = ${workspaceId}`;
}
