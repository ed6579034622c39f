/**
 * A fresh dashboard token for the same user, in the login shape. The old one
 * is left to expire rather than revoked, so a second tab or a request in
 * flight is not cut off mid-renewal (as the agent refresh does).
 */
import type { AppDeps } from "../deps.ts";
import { type Auth, issueToken } from "../auth/tokens.ts";
import {
  DASHBOARD_TOKEN_NAME,
  type DashboardSessionView,
  dashboardSessionView,
} from "./dashboard_session.ts";

export async function refreshDashboardToken(
  deps: AppDeps,
  auth: Auth,
  now: Date,
): Promise<{ token: string } & DashboardSessionView> {
  const token = await issueToken(deps.sql, {
    workspaceId: auth.workspace.id,
    userId: auth.user.id,
    name: DASHBOARD_TOKEN_NAME,
    ability: "dashboard",
    now,
    deviceName: auth.deviceName,
  });
  const view = await dashboardSessionView(deps.sql, { ...auth, expiresAt: token.expiresAt });
  return { token: token.plainText, ...view };
}
