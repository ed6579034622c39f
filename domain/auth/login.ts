/**
 * Password login shared by every surface (portal now, agent and web later):
 * lockout check, constant-time credential check, the surface's eligibility
 * rule, then a token of the surface's ability. Every refusal carries the same
 * message, so a caller cannot tell an unknown e-mail from a wrong password,
 * a disabled portal or an insufficient role.
 *
 * A user with two-factor sign-in on (or a member of a workspace that requires
 * it) gets no token here: the right password answers with a challenge for the
 * second step (two_factor/complete_two_factor_login.ts), and the lockout count
 * is cleared only when that step succeeds, so the password cannot be used to
 * reset the count between guesses of the code.
 */
import type { Executor, Sql } from "../../db/client.ts";
import type { AppDeps } from "../deps.ts";
import type { Kv } from "../../kv/kv.ts";
import type { Ability } from "../../db/tokens.ts";
import { findUserByEmail, type UserRow } from "../../db/users.ts";
import { findPlanOfWorkspace, findWorkspace, type WorkspaceRow } from "../../db/workspaces.ts";
import { EnrolmentRequired, Forbidden, SecondStepRequired, Unauthenticated } from "../errors.ts";
import { verifyPassword } from "./passwords.ts";
import { type Auth, type IssuedToken, issueToken } from "./tokens.ts";
import { beginLoginAttempt, type LockoutPolicy } from "./login_lockout.ts";
import { anonymousActor, recordAudit } from "../audit/record_audit.ts";
import { findTwoFactorState, workspaceRequiresTwoFactor } from "../../db/two_factor.ts";
import { openChallenge } from "./two_factor/sign_in_challenge.ts";

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
  /** Decrypts two-factor secrets at the second step. */
  appKey: CryptoKey;
}

export interface LoginResult {
  token: IssuedToken;
  user: UserRow;
  workspace: WorkspaceRow;
}

/** The login's collaborators from the app's: its database, Kv and the configured lockout. */
export function loginDepsOf(deps: Pick<AppDeps, "sql" | "kv" | "config" | "appKey">): LoginDeps {
  return {
    sql: deps.sql,
    kv: deps.kv,
    appKey: deps.appKey,
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
      await recordSignInFailure(deps.sql, {
        workspaceId: user?.workspace_id ?? null,
        email,
        ip: attempt.ip,
        reason: "wrong_password",
        now: attempt.now,
      });
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
  const step = await secondStepDue(deps.sql, user);
  if (step) {
    // Neither counted nor cleared: the second step settles the count.
    await counted.abandoned();
    const opened = await openChallenge(deps.kv, {
      purpose: step,
      userId: user.id,
      workspaceId: workspace.id,
      email,
      ability: surface.ability,
      deviceName: surface.deviceName ?? null,
    }, attempt.now);
    const extra = {
      challenge: opened.challenge,
      challenge_expires_at: opened.expiresAt.toISOString(),
    };
    if (step === "verify") {
      throw new SecondStepRequired(TWO_FACTOR_REQUIRED_MESSAGE, {
        two_factor_required: true,
        ...extra,
      });
    }
    throw new EnrolmentRequired(TWO_FACTOR_SETUP_MESSAGE, {
      two_factor_setup_required: true,
      ...extra,
    });
  }
  await counted.succeeded();
  const token = await deps.sql.begin((tx) =>
    issueSignInToken(tx, surface, user!, workspace!, attempt)
  );
  return { token, user, workspace };
}

export const TWO_FACTOR_REQUIRED_MESSAGE =
  "Two-factor sign-in is on for this account: send a code from the authenticator app, " +
  "or a recovery code, with the challenge.";
export const TWO_FACTOR_SETUP_MESSAGE =
  "This workspace requires two-factor sign-in: set it up with the challenge to continue.";

/** `verify` when the user has two-factor on, `enrol` when the workspace requires it of them. */
async function secondStepDue(sql: Sql, user: UserRow): Promise<"verify" | "enrol" | null> {
  const state = await findTwoFactorState(sql, user.id);
  if (state.enabledAt) return "verify";
  return await workspaceRequiresTwoFactor(sql, user.workspace_id) ? "enrol" : null;
}

/**
 * The token of a completed sign-in and its `auth.sign_in` audit row, in the
 * caller's transaction. `details` adds to the row (the factor of a second step).
 */
export async function issueSignInToken(
  tx: Executor,
  surface: LoginSurface,
  user: UserRow,
  workspace: WorkspaceRow,
  attempt: { ip: string; now: Date },
  details: Record<string, string> = {},
): Promise<IssuedToken> {
  const token = await issueToken(tx, {
    workspaceId: workspace.id,
    userId: user.id,
    name: surface.tokenName,
    ability: surface.ability,
    now: attempt.now,
    deviceName: surface.deviceName ?? null,
    ip: attempt.ip,
  });
  await recordAudit(tx, {
    workspaceId: workspace.id,
    actor: {
      userId: user.id,
      tokenId: token.id,
      label: `${user.name} <${user.email}>`,
      ip: attempt.ip,
    },
    action: "auth.sign_in",
    details: { surface: surface.ability, ...details },
    now: attempt.now,
  });
  return token;
}

/**
 * `auth.sign_in_failed`: in the user's workspace when the e-mail is known,
 * else with no workspace. Its own statement: the refusal changes nothing else.
 */
export async function recordSignInFailure(
  sql: Executor,
  f: { workspaceId: number | null; email: string; ip: string; reason: string; now: Date },
): Promise<void> {
  await recordAudit(sql, {
    workspaceId: f.workspaceId,
    actor: anonymousActor(f.email, f.ip),
    action: "auth.sign_in_failed",
    details: { reason: f.reason },
    now: f.now,
  });
}
