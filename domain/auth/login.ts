/**
 * Password login shared by every surface (portal now, agent and web later):
 * lockout check, constant-time credential check, the surface's eligibility
 * rule, then a token of the surface's ability. Every refusal carries the same
 * message, so a caller cannot tell an unknown e-mail from a wrong password,
 * a disabled portal or an insufficient role.
 */
import type { Sql } from "../../db/client.ts";
import type { AppDeps } from "../deps.ts";
import type { Kv } from "../../kv/kv.ts";
import type { Ability } from "../../db/tokens.ts";
import { findUserByEmail, type UserRow } from "../../db/users.ts";
import { findPlanOfWorkspace, findWorkspace, type WorkspaceRow } from "../../db/workspaces.ts";
import { Forbidden, Unauthenticated } from "../errors.ts";
import { verifyPassword } from "./passwords.ts";
import { type Auth, type IssuedToken, issueToken } from "./tokens.ts";
import { beginLoginAttempt, type LockoutPolicy } from "./login_lockout.ts";

export const LOGIN_REFUSED_MESSAGE = "These credentials do not match our records.";

export interface LoginSurface {
  ability: Ability;
  /** Name stored on the issued token (shown in token lists). */
  tokenName: string;
  deviceName?: string | null;
  /** Whether this user of this workspace may sign in here (role, portal switch...). */
  eligible(user: UserRow, workspace: WorkspaceRow): boolean;
  /**
   * The refusal for a right password whose role may not sign in here, where a
   * surface tells the person where to go instead (the dashboard sends agents
   * to the inbox). Absent: the one vague refusal.
   */
  ineligibleMessage?: string;
}

export interface LoginDeps {
  sql: Sql;
  kv: Kv;
  lockout: LockoutPolicy;
}

export interface LoginResult {
  token: IssuedToken;
  user: UserRow;
  workspace: WorkspaceRow;
}

/** The login's collaborators from the app's: its database, Kv and the configured lockout. */
export function loginDepsOf(deps: Pick<AppDeps, "sql" | "kv" | "config">): LoginDeps {
  return {
    sql: deps.sql,
    kv: deps.kv,
    lockout: {
      maxAttempts: deps.config.loginMaxAttempts,
      lockoutSeconds: deps.config.loginLockoutSeconds,
    },
  };
}

/**
 * Who just signed in, shaped as a token's `Auth` is (user and workspace with its
 * plan), so a surface describes a new session as it describes an existing one.
 */
export async function signedInSubjects(
  sql: Sql,
  result: Pick<LoginResult, "user" | "workspace">,
): Promise<Pick<Auth, "user" | "workspace">> {
  const { user, workspace } = result;
  const plan = await findPlanOfWorkspace(sql, workspace.id);
  return {
    user: {
      id: user.id,
      name: user.name,
      email: user.email,
      role: user.role,
      avatarUrl: user.avatar_url,
    },
    workspace: {
      id: workspace.id,
      name: workspace.name,
      slug: workspace.slug,
      planCode: plan.code,
      planName: plan.name,
      portalEnabled: workspace.portal_enabled,
    },
  };
}

/**
 * 401 for wrong credentials, 403 for an account that may not sign in here
 * (same message), 429 while the e-mail and IP pair is locked out.
 */
export async function login(
  deps: LoginDeps,
  surface: LoginSurface,
  attempt: { email: string; password: string; ip: string; now: Date },
): Promise<LoginResult> {
  const email = attempt.email.trim().toLowerCase();
  // Admitted (and counted) atomically before the password is evaluated.
  const counted = await beginLoginAttempt(deps.kv, deps.lockout, email, attempt.ip);
  let user: UserRow | null;
  let workspace: WorkspaceRow | null;
  try {
    user = await findUserByEmail(deps.sql, email);
    const ok = await verifyPassword(attempt.password, user?.password_hash ?? null);
    // The failure that reaches the threshold still answers 401; the next gets 429.
    if (!user || !ok) {
      await counted.failed();
      throw new Unauthenticated(LOGIN_REFUSED_MESSAGE);
    }
    workspace = await findWorkspace(deps.sql, user.workspace_id);
  } catch (err) {
    await counted.abandoned(); // a fault decided nothing; a no-op once failed
    throw err;
  }
  if (!workspace || workspace.suspended || user.suspended || !surface.eligible(user, workspace)) {
    // The right password for an account that may not sign in here: neither counted nor cleared.
    await counted.abandoned();
    const suspended = !workspace || workspace.suspended || user.suspended;
    throw new Forbidden(
      suspended ? LOGIN_REFUSED_MESSAGE : surface.ineligibleMessage ?? LOGIN_REFUSED_MESSAGE,
    );
  }
  await counted.succeeded();
  const token = await issueToken(deps.sql, {
    workspaceId: workspace.id,
    userId: user.id,
    name: surface.tokenName,
    ability: surface.ability,
    now: attempt.now,
    deviceName: surface.deviceName ?? null,
    ip: attempt.ip,
  });
  return { token, user, workspace };
}
