/** access_tokens: bearer credentials, the secret kept only as SHA-256. */
import type { Executor } from "./client.ts";

export type Ability = "api" | "portal" | "agent" | "dashboard";

export interface TokenAuthRow {
  token_id: number;
  secret_hash: string;
  ability: Ability;
  expires_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
  last_ip: string | null;
  device_name: string | null;
  token_created_at: Date;
  user_id: number;
  user_name: string;
  user_email: string;
  user_role: "owner" | "administrator" | "agent" | "viewer";
  user_suspended: boolean;
  user_avatar_url: string | null;
  workspace_id: number;
  workspace_name: string;
  workspace_slug: string;
  workspace_suspended: boolean;
  portal_enabled: boolean;
  plan_code: string;
  plan_name: string;
}

const AUTH_SELECT = `
    SELECT t.id AS token_id, t.secret_hash, t.ability, t.expires_at, t.revoked_at,
           t.last_used_at, t.last_ip, t.device_name, t.created_at AS token_created_at,
           u.id AS user_id, u.name AS user_name, u.email AS user_email, u.role AS user_role,
           u.suspended AS user_suspended, u.avatar_url AS user_avatar_url,
           w.id AS workspace_id, w.name AS workspace_name, w.slug AS workspace_slug,
           w.suspended AS workspace_suspended, w.portal_enabled,
           p.code AS plan_code, p.name AS plan_name
      FROM access_tokens t
      JOIN users u ON u.id = t.user_id
      JOIN workspaces w ON w.id = t.workspace_id
      JOIN plans p ON p.id = w.plan_id`;

// Every authenticated request runs one of these: prepared once per connection,
// because planning a four-table join costs more than running it (1.7 ms
// against 0.5 ms on the embedded database).
const PREPARED = { prepare: true } as const;

/**
 * Token with its user and workspace, in one round trip. Not workspace-scoped:
 * this is how a request learns its workspace.
 */
export async function findTokenForAuth(sql: Executor, id: number): Promise<TokenAuthRow | null> {
  const [row] = await sql.unsafe<TokenAuthRow[]>(`${AUTH_SELECT} WHERE t.id = $1`, [id], PREPARED);
  return row ?? null;
}

/** Lookup for bare seeded tokens, which carry no id. */
export async function findTokenByHashForAuth(
  sql: Executor,
  hash: string,
): Promise<TokenAuthRow | null> {
  const [row] = await sql.unsafe<TokenAuthRow[]>(
    `${AUTH_SELECT} WHERE t.secret_hash = $1 ORDER BY t.id LIMIT 1`,
    [hash],
    PREPARED,
  );
  return row ?? null;
}

export async function insertToken(
  sql: Executor,
  t: {
    workspaceId: number;
    userId: number;
    name: string;
    ability: Ability;
    secretHash: string;
    expiresAt: Date;
    deviceName?: string | null;
    /** The client address it was issued to (shown in the user's sessions). */
    ip?: string | null;
  },
): Promise<number> {
  const [row] = await sql<{ id: number }[]>`
    INSERT INTO access_tokens (workspace_id, user_id, name, ability, secret_hash, expires_at,
                               device_name, last_ip)
    VALUES (${t.workspaceId}, ${t.userId}, ${t.name}, ${t.ability}, ${t.secretHash},
            ${t.expiresAt}, ${t.deviceName ?? null}, ${t.ip ?? null})
    RETURNING id`;
  return row!.id;
}

/** Insert with a chosen id (a seeded `<id>|<secret>` token), keeping the sequence ahead. */
export async function insertTokenWithId(
  sql: Executor,
  id: number,
  t: Parameters<typeof insertToken>[1],
): Promise<void> {
  await sql`
    INSERT INTO access_tokens (id, workspace_id, user_id, name, ability, secret_hash, expires_at, device_name)
    VALUES (${id}, ${t.workspaceId}, ${t.userId}, ${t.name}, ${t.ability}, ${t.secretHash},
            ${t.expiresAt}, ${t.deviceName ?? null})`;
  await sql`SELECT setval(pg_get_serial_sequence('access_tokens', 'id'),
                          GREATEST((SELECT max(id) FROM access_tokens), 1))`;
}

export async function findTokenByName(
  sql: Executor,
  workspaceId: number,
  userId: number,
  name: string,
): Promise<{ id: number; expires_at: Date } | null> {
  const [row] = await sql<{ id: number; expires_at: Date }[]>`
    SELECT id, expires_at FROM access_tokens
     WHERE workspace_id = ${workspaceId} AND user_id = ${userId} AND name = ${name}
     ORDER BY id LIMIT 1`;
  return row ?? null;
}

export async function updateTokenSecret(
  sql: Executor,
  workspaceId: number,
  id: number,
  t: { secretHash: string; ability: Ability; expiresAt: Date },
): Promise<void> {
  await sql`
    UPDATE access_tokens
       SET secret_hash = ${t.secretHash}, ability = ${t.ability}, expires_at = ${t.expiresAt}
     WHERE workspace_id = ${workspaceId} AND id = ${id}`;
}

export async function countActiveTokens(
  sql: Executor,
  workspaceId: number,
  userId: number,
  ability: Ability,
  now: Date,
): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM access_tokens
     WHERE workspace_id = ${workspaceId} AND user_id = ${userId} AND ability = ${ability}
       AND revoked_at IS NULL AND expires_at > ${now}`;
  return row!.n;
}

/** Last use, and the address it came from when known (null keeps the one recorded). */
export async function touchToken(
  sql: Executor,
  id: number,
  now: Date,
  ip: string | null = null,
): Promise<void> {
  await sql`UPDATE access_tokens SET last_used_at = ${now}, last_ip = coalesce(${ip}, last_ip)
             WHERE id = ${id}`;
}

export async function revokeToken(
  sql: Executor,
  workspaceId: number,
  id: number,
  now: Date,
): Promise<void> {
  await sql`UPDATE access_tokens SET revoked_at = ${now}
             WHERE workspace_id = ${workspaceId} AND id = ${id} AND revoked_at IS NULL`;
}

export interface OwnTokenRow {
  id: number;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date;
  revoked_at: Date | null;
}

/** One account's tokens of one ability, newest first (revoked and expired included). */
export async function listOwnTokens(
  sql: Executor,
  workspaceId: number,
  userId: number,
  ability: Ability,
): Promise<OwnTokenRow[]> {
  return await sql<OwnTokenRow[]>`
    SELECT id, name, created_at, last_used_at, expires_at, revoked_at FROM access_tokens
     WHERE workspace_id = ${workspaceId} AND user_id = ${userId} AND ability = ${ability}
     ORDER BY created_at DESC, id DESC`;
}

/** Revokes one of an account's tokens; false when it is not that account's (or not that ability). */
export async function revokeOwnToken(
  sql: Executor,
  workspaceId: number,
  userId: number,
  ability: Ability,
  id: number,
  now: Date,
): Promise<boolean> {
  const rows = await sql`
    UPDATE access_tokens SET revoked_at = coalesce(revoked_at, ${now})
     WHERE workspace_id = ${workspaceId} AND user_id = ${userId} AND ability = ${ability}
       AND id = ${id}
    RETURNING 1`;
  return rows.length > 0;
}

/** Who holds a token still good at `now`: what a channel's authorisation is decided on. */
export interface TokenHolderRow {
  id: number;
  ability: Ability;
  role: TokenAuthRow["user_role"];
  user_id: number;
  workspace_id: number;
}

/**
 * Of `ids`, those still good at `now` (not revoked, not expired, their user
 * and workspace not suspended), with their holder's role. Not
 * workspace-scoped: the realtime server re-checks the tokens behind every
 * instance's subscriptions in one query.
 */
export async function tokenHolders(
  sql: Executor,
  ids: number[],
  now: Date,
): Promise<TokenHolderRow[]> {
  if (ids.length === 0) return [];
  return await sql<TokenHolderRow[]>`
    SELECT t.id::int AS id, t.ability, u.role, u.id::int AS user_id, t.workspace_id::int AS workspace_id
      FROM access_tokens t
      JOIN users u ON u.id = t.user_id
      JOIN workspaces w ON w.id = t.workspace_id
     WHERE t.id = ANY(${ids}::bigint[]) AND t.revoked_at IS NULL AND t.expires_at > ${now}
       AND NOT u.suspended AND NOT w.suspended
       -- A dashboard token opens the dashboard only while its holder's role may (not an agent).
       AND (t.ability <> 'dashboard' OR u.role <> 'agent')`;
}
