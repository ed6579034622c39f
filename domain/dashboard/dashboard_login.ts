/**
 * Dashboard sign-in: the shared password login (one lockout with the portal,
 * agent and web logins) for the roles that hold `view-dashboard` (owner,
 * administrator, viewer), in any workspace, portal or not. An agent who typed
 * the right password is told where to go instead of the vague refusal: the
 * password already proved who they are.
 */
import type { AppDeps } from "../deps.ts";
import { login } from "../auth/login.ts";
import { can } from "../auth/permissions.ts";
import { findPlanOfWorkspace } from "../../db/workspaces.ts";
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
  const { token, user, workspace } = await login(
    {
      sql: deps.sql,
      kv: deps.kv,
      lockout: {
        maxAttempts: deps.config.loginMaxAttempts,
        lockoutSeconds: deps.config.loginLockoutSeconds,
      },
    },
    {
      ability: "dashboard",
      tokenName: DASHBOARD_TOKEN_NAME,
      deviceName: "Web dashboard",
      eligible: (user) => can(user.role, "view-dashboard"),
      ineligibleMessage: AGENT_REFUSAL,
    },
    input,
  );
  const plan = await findPlanOfWorkspace(deps.sql, workspace.id);
  const view = await dashboardSessionView(deps.sql, {
    expiresAt: token.expiresAt,
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
  });
  return { token: token.plainText, ...view };
}
