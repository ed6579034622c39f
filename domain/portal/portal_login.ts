/**
 * Portal sign-in: the shared password login with the portal's rule (owner or
 * administrator of a workspace whose white-label portal is enabled). With
 * two-factor on, the login answers a challenge and `portalTwoFactorLogin`
 * gives the same answer.
 */
import type { AppDeps } from "../deps.ts";
import { login, loginDepsOf, type LoginResult, type LoginSurface } from "../auth/login.ts";
import { completeTwoFactorLogin } from "../auth/two_factor/complete_two_factor_login.ts";
import { describePortalSession, type PortalSession } from "./describe_portal_session.ts";

export const PORTAL_TOKEN_NAME = "portal";

export type PortalLoginAnswer = { token: string } & Omit<PortalSession, "limits" | "usage">;

export const portalSurface = (): LoginSurface => ({
  ability: "portal",
  tokenName: PORTAL_TOKEN_NAME,
  eligible: (user, workspace) =>
    workspace.portal_enabled && (user.role === "owner" || user.role === "administrator"),
});

async function answerOf(
  deps: AppDeps,
  result: LoginResult,
  now: Date,
): Promise<PortalLoginAnswer> {
  const session = await describePortalSession(deps.sql, {
    workspaceId: result.workspace.id,
    user: { name: result.user.name, email: result.user.email, role: result.user.role },
    now,
  });
  return {
    token: result.token.plainText,
    user: session.user,
    company: session.company,
    brand: session.brand,
  };
}

export async function portalLogin(
  deps: AppDeps,
  input: { email: string; password: string; ip: string; now: Date },
): Promise<PortalLoginAnswer> {
  return await answerOf(deps, await login(loginDepsOf(deps), portalSurface(), input), input.now);
}

/** The second step: the login's answer, plus the recovery codes after a required enrolment. */
export async function portalTwoFactorLogin(
  deps: AppDeps,
  input: { challenge: string; code: string; ip: string; now: Date },
): Promise<PortalLoginAnswer & { recovery_codes?: string[] }> {
  const done = await completeTwoFactorLogin(loginDepsOf(deps), portalSurface, {
    ...input,
    ability: "portal",
  });
  return {
    ...await answerOf(deps, done, input.now),
    ...(done.recoveryCodes ? { recovery_codes: done.recoveryCodes } : {}),
  };
}
