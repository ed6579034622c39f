/**
 * A user's sessions: their sign-in tokens (dashboard, agent, portal) that are
 * still good. API tokens are not sessions: they are listed and revoked on the
 * API tokens screen, and a password change leaves them working.
 */
import type { Executor } from "./client.ts";
import type { Ability } from "./tokens.ts";

export const SESSION_ABILITIES: readonly Ability[] = ["dashboard", "agent", "portal"];

export interface SessionRow {
  id: number;
  name: string;
  ability: Ability;
  device_name: string | null;
  created_at: Date;
  last_used_at: Date | null;
  last_ip: string | null;
  expires_at: Date;
}

/** The user's good sessions, most recently used first. */
export async function listSessions(
  sql: Executor,
  workspaceId: number,
  userId: number,
  now: Date,
): Promise<SessionRow[]> {
  return await sql<SessionRow[]>`
    SELECT id::int AS id, name, ability, device_name, created_at, last_used_at, last_ip, expires_at
      FROM access_tokens
     WHERE workspace_id = ${workspaceId} AND user_id = ${userId}
       AND ability = ANY(${SESSION_ABILITIES as Ability[]}::text[])
       AND revoked_at IS NULL AND expires_at > ${now}
     ORDER BY coalesce(last_used_at, created_at) DESC, id DESC`;
}

/**
 * Revoke the user's good sessions (all, or one by id), keeping `keep` (the
 * caller's own) when given; returns the ids revoked.
 */
export async function revokeSessions(
  sql: Executor,
  workspaceId: number,
  userId: number,
  now: Date,
  only: { id?: number; keep?: number } = {},
): Promise<number[]> {
  const rows = await sql<{ id: number }[]>`
    UPDATE access_tokens SET revoked_at = ${now}
     WHERE workspace_id = ${workspaceId} AND user_id = ${userId}
       AND ability = ANY(${SESSION_ABILITIES as Ability[]}::text[])
       AND revoked_at IS NULL AND expires_at > ${now}
       AND (${only.id ?? null}::bigint IS NULL OR id = ${only.id ?? null})
       AND (${only.keep ?? null}::bigint IS NULL OR id <> ${only.keep ?? null})
    RETURNING id::int AS id`;
  return rows.map((r) => r.id);
}
