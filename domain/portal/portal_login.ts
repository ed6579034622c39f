/**
 * Portal sign-in: the shared password login with the portal's rule (owner or
 * administrator of a workspace whose white-label portal is enabled).
 */
import type { AppDeps } from "../deps.ts";
import { login, loginDepsOf } from "../auth/login.ts";
import { describePortalSession, type PortalSession } from "./describe_portal_session.ts";

export const PORTAL_TOKEN_NAME = "portal";

export async function portalLogin(
  deps: AppDeps,
  input: { email: string; password: string; ip: string; now: Date },
): Promise<{ token: string } & Omit<PortalSession, "limits" | "usage">> {
  const result = await login(
    loginDepsOf(deps),
    {
      ability: "portal",
      tokenName: PORTAL_TOKEN_NAME,
      eligible: (user, workspace) =>
        workspace.portal_enabled && (user.role === "owner" || user.role === "administrator"),
    },
    input,
  );
  const session = await describePortalSession(deps.sql, {
    workspaceId: result.workspace.id,
    user: { name: result.user.name, email: result.user.email, role: result.user.role },
    now: input.now,
  });
  return {
    token: result.token.plainText,
    user: session.user,
    company: session.company,
    brand: session.brand,
  };
}
