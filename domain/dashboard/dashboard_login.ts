/**
 * Dashboard sign-in: the shared password login (one lockout with the portal,
 * agent and web logins) for the roles that hold `view-dashboard` (owner,
 * administrator, viewer), in any workspace, portal or not. An agent who typed
 * the right password is told where to go instead of the vague refusal: the
 * password already proved who they are. With two-factor on, the login
 * answers a challenge and `dashboardTwoFactorLogin` gives the same answer.
 */
import type { AppDeps } from "../deps.ts";
import {
  login,
  loginDepsOf,
  type LoginResult,
  type LoginSurface,
  signedInSubjects,
} from "../auth/login.ts";
import { can } from "../auth/permissions.ts";
import { completeTwoFactorLogin } from "../auth/two_factor/complete_two_factor_login.ts";
import {
  DASHBOARD_TOKEN_NAME,
  type DashboardSessionView,
  dashboardSessionView,
} from "./dashboard_session.ts";

export const AGENT_REFUSAL =
  "The dashboard is for owners, administrators and viewers. Agents work in the inbox at /inbox.";

export type DashboardLoginAnswer = { token: string } & DashboardSessionView;

export const dashboardSurface = (): LoginSurface => ({
  ability: "dashboard",
  tokenName: DASHBOARD_TOKEN_NAME,
  deviceName: "Web dashboard",
  eligible: (user) => can(user.role, "view-dashboard"),
  ineligibleMessage: AGENT_REFUSAL,
});

async function answerOf(deps: AppDeps, signedIn: LoginResult): Promise<DashboardLoginAnswer> {
  const view = await dashboardSessionView(deps.sql, {
    expiresAt: signedIn.token.expiresAt,
    ...await signedInSubjects(deps.sql, signedIn),
  });
  return { token: signedIn.token.plainText, ...view };
}

export async function dashboardLogin(
  deps: AppDeps,
  input: { email: string; password: string; ip: string; now: Date },
): Promise<DashboardLoginAnswer> {
  return await answerOf(deps, await login(loginDepsOf(deps), dashboardSurface(), input));
}

/** The second step: the login's answer, plus the recovery codes after a required enrolment. */
export async function dashboardTwoFactorLogin(
  deps: AppDeps,
  input: { challenge: string; code: string; ip: string; now: Date },
): Promise<DashboardLoginAnswer & { recovery_codes?: string[] }> {
  const done = await completeTwoFactorLogin(loginDepsOf(deps), dashboardSurface, {
    ...input,
    ability: "dashboard",
  });
  return {
    ...await answerOf(deps, done),
    ...(done.recoveryCodes ? { recovery_codes: done.recoveryCodes } : {}),
  };
}
