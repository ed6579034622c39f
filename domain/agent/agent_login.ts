/**
 * Agent sign-in: the shared password login (one lockout with the portal and
 * web logins, one refusal text) with the agent rule: owners, administrators
 * and agents, never the read-only viewer seat.
 */
import type { AppDeps } from "../deps.ts";
import { login } from "../auth/login.ts";
import { can } from "../auth/permissions.ts";
import { findPlanOfWorkspace } from "../../db/workspaces.ts";
import { AGENT_TOKEN_NAME, type AgentSessionView, agentSessionView } from "./agent_session.ts";

export async function agentLogin(
  deps: AppDeps,
  input: { email: string; password: string; deviceName: string | null; ip: string; now: Date },
): Promise<{ token: string } & AgentSessionView> {
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
      ability: "agent",
      tokenName: AGENT_TOKEN_NAME,
      deviceName: input.deviceName,
      eligible: (user) => can(user.role, "handle-conversations"),
    },
    input,
  );
  const plan = await findPlanOfWorkspace(deps.sql, workspace.id);
  return {
    token: token.plainText,
    ...agentSessionView({
      expiresAt: token.expiresAt,
      deviceName: input.deviceName,
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
    }),
  };
}
