/**
 * Bearer tokens `<id>|<secret>`: issue, authenticate, revoke. The id finds the
 * row, the secret is compared as SHA-256 in constant time.
 */
import type { Executor } from "../../db/client.ts";
import * as tokens from "../../db/tokens.ts";
import type { Ability } from "../../db/tokens.ts";
import { Forbidden, Unauthenticated } from "../errors.ts";
import type { Role } from "./permissions.ts";
import { randomSecret, safeEqual, sha256Hex } from "./secrets.ts";

export const TOKEN_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;
// last_used_at is written at most once a minute per token: a write per request
// would double the cost of every authenticated read.
const TOUCH_INTERVAL_MS = 60_000;

export interface AuthUser {
  id: number;
  name: string;
  email: string;
  role: Role;
  avatarUrl: string | null;
}

export interface AuthWorkspace {
  id: number;
  name: string;
  slug: string;
  planCode: string;
  planName: string;
  portalEnabled: boolean;
}

/** Who is calling, established once per request by `authenticate`. */
export interface Auth {
  tokenId: number;
  ability: Ability;
  expiresAt: Date;
  createdAt: Date;
  deviceName: string | null;
  user: AuthUser;
  workspace: AuthWorkspace;
}

export interface IssuedToken {
  id: number;
  plainText: string;
  expiresAt: Date;
}

/**
 * Split `<id>|<secret>`. A seeded token may be a bare string (no id part): it
 * is then found by the hash of the whole string. Null when malformed.
 */
export function parseToken(plain: string): { id: number | null; secret: string } | null {
  const m = /^(?:(\d{1,15})\|)?([\x21-\x7e]{8,256})$/.exec(plain);
  if (!m) return null;
  return { id: m[1] ? Number(m[1]) : null, secret: m[2]! };
}

export async function issueToken(
  sql: Executor,
  input: {
    workspaceId: number;
    userId: number;
    name: string;
    ability: Ability;
    now: Date;
    expiresAt?: Date;
    deviceName?: string | null;
    /** The client's address, shown in the user's list of sessions. */
    ip?: string | null;
  },
): Promise<IssuedToken> {
  const secret = randomSecret(30);
  const expiresAt = input.expiresAt ?? new Date(input.now.getTime() + TOKEN_LIFETIME_MS);
  const id = await tokens.insertToken(sql, {
    workspaceId: input.workspaceId,
    userId: input.userId,
    name: input.name,
    ability: input.ability,
    secretHash: await sha256Hex(secret),
    expiresAt,
    deviceName: input.deviceName,
    ip: input.ip ?? null,
  });
  return { id, plainText: `${id}|${secret}`, expiresAt };
}

/**
 * Resolve an Authorization header for a surface. 401 when the token is missing,
 * malformed, unknown, expired or revoked; 403 for a wrong ability or a
 * suspended user or workspace. `ability` may list several (the account
 * procedures take any sign-in token). `ip`, when given, is recorded with the
 * last use (the user's list of sessions shows it).
 */
export async function authenticate(
  sql: Executor,
  header: string | null,
  ability: Ability | readonly Ability[],
  now: Date,
  ip: string | null = null,
): Promise<Auth> {
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!m) throw new Unauthenticated();
  const parsed = parseToken(m[1]!);
  if (!parsed) throw new Unauthenticated();
  const hash = await sha256Hex(parsed.secret);
  const row = parsed.id !== null
    ? await tokens.findTokenForAuth(sql, parsed.id)
    : await tokens.findTokenByHashForAuth(sql, hash);
  if (!row) throw new Unauthenticated();
  if (!safeEqual(row.secret_hash, hash)) throw new Unauthenticated();
  if (row.revoked_at) throw new Unauthenticated("This token has been revoked.");
  if (row.expires_at.getTime() <= now.getTime()) {
    throw new Unauthenticated("This token has expired.");
  }
  const abilities: readonly Ability[] = typeof ability === "string" ? [ability] : ability;
  if (!abilities.includes(row.ability)) {
    throw new Forbidden(
      `This token does not have the ${abilities.join(" or ")} ability required here.`,
    );
  }
  if (row.workspace_suspended) throw new Forbidden("This workspace is suspended.");
  if (row.user_suspended) throw new Forbidden("This account is suspended.");
  // A new address is written at once, so a session's list shows where it is used now.
  if (
    !row.last_used_at || now.getTime() - row.last_used_at.getTime() > TOUCH_INTERVAL_MS ||
    (ip !== null && ip !== row.last_ip)
  ) {
    await tokens.touchToken(sql, row.token_id, now, ip);
  }
  return {
    tokenId: row.token_id,
    ability: row.ability,
    expiresAt: row.expires_at,
    createdAt: row.token_created_at,
    deviceName: row.device_name,
    user: {
      id: row.user_id,
      name: row.user_name,
      email: row.user_email,
      role: row.user_role,
      avatarUrl: row.user_avatar_url,
    },
    workspace: {
      id: row.workspace_id,
      name: row.workspace_name,
      slug: row.workspace_slug,
      planCode: row.plan_code,
      planName: row.plan_name,
      portalEnabled: row.portal_enabled,
    },
  };
}

export async function revokeCurrentToken(sql: Executor, auth: Auth, now: Date): Promise<void> {
  await tokens.revokeToken(sql, auth.workspace.id, auth.tokenId, now);
}
