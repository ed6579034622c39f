/**
 * Dashboard sign-in: the shared password login (one lockout with the portal,
 * agent and web logins) for the roles that hold `view-dashboard` (owner,
 * administrator, viewer), in any workspace, portal or not. An agent who typed
 * the right password is told where to go instead of the vague refusal: the
 * password already proved who they are.
 */
import type { AppDeps } from "../deps.ts";
import { login, loginDepsOf, signedInSubjects } from "../auth/login.ts";
import { can } from "../auth/permissions.ts";
import {
  DASHBOARD_TOKEN_NAME,
  type DashboardSessionView,
  dashboardSessionView,
} from "./dashboard_session.ts";

export const AGENT_REFUSAL =
  "The dashboard is for owners, administrators and viewers. Agents work in the inbox at /inbox.";

export async function dashboardLogin(
  deps: AppDeps,
  input: { email: string; password: string; ip: string; now: Date },
): Promise<{ token: string } & DashboardSessionView> {
  const signedIn = await login(
    loginDepsOf(deps),
    {
      ability: "dashboard",
      tokenName: DASHBOARD_TOKEN_NAME,
      deviceName: "Web dashboard",
      eligible: (user) => can(user.role, "view-dashboard"),
      ineligibleMessage: AGENT_REFUSAL,
    },
    input,
  );
  const view = await dashboardSessionView(deps.sql, {
    expiresAt: signedIn.token.expiresAt,
    ...await signedInSubjects(deps.sql, signedIn),
  });
  return { token: signedIn.token.plainText, ...view };
}
