/**
 * The dashboard's session shape (`{token?, expires_at, user, company, brand,
 * permissions}`), shared by login, refresh and me so the three never drift.
 * `brand` is the white-label brand exactly as `GET /api/portal/me` returns it,
 * present only while the workspace has the portal enabled: the app then wears
 * it instead of Parley's.
 */
import type { Executor } from "../../db/client.ts";
import { findWorkspace } from "../../db/workspaces.ts";
import { can, type Permission, type Role, roleDisplayName } from "../auth/permissions.ts";
import type { Auth } from "../auth/tokens.ts";
import { NotFound } from "../errors.ts";
import { PRODUCT_NAME } from "../portal/describe_portal_session.ts";

/** Name stored on dashboard tokens. */
export const DASHBOARD_TOKEN_NAME = "dashboard";

/** The permissions a dashboard screen asks about to show or hide its controls. */
const SCREEN_PERMISSIONS = ["manage-chatbots", "manage-content", "manage-workspace"] as const;
export type ScreenPermission = typeof SCREEN_PERMISSIONS[number] & Permission;

export interface DashboardSessionView {
  expires_at: string;
  user: { id: number; name: string; email: string; role: Role; role_label: string };
  company: { id: number; name: string; plan: string };
  brand: { name: string; powered_by: string; logo_url: string | null } | null;
  permissions: ScreenPermission[];
}

export async function dashboardSessionView(
  sql: Executor,
  session: Pick<Auth, "user" | "workspace" | "expiresAt">,
): Promise<DashboardSessionView> {
  const workspace = await findWorkspace(sql, session.workspace.id);
  if (!workspace) throw new NotFound("Workspace not found.");
  const role = session.user.role;
  return {
    expires_at: session.expiresAt.toISOString(),
    user: {
      id: session.user.id,
      name: session.user.name,
      email: session.user.email,
      role,
      role_label: roleDisplayName(role),
    },
    company: { id: workspace.id, name: workspace.name, plan: session.workspace.planName },
    brand: workspace.portal_enabled
      ? {
        name: workspace.brand_name ?? workspace.name,
        powered_by: PRODUCT_NAME,
        logo_url: workspace.brand_logo_url,
      }
      : null,
    permissions: SCREEN_PERMISSIONS.filter((p) => can(role, p)),
  };
}
