/**
 * Agent sign-in: the shared password login (one lockout with the portal and
 * web logins, one refusal text) with the agent rule: owners, administrators
 * and agents, never the read-only viewer seat.
 */
import type { AppDeps } from "../deps.ts";
import { login, loginDepsOf, signedInSubjects } from "../auth/login.ts";
import { can } from "../auth/permissions.ts";
import { AGENT_TOKEN_NAME, type AgentSessionView, agentSessionView } from "./agent_session.ts";

export async function agentLogin(
  deps: AppDeps,
  input: { email: string; password: string; deviceName: string | null; ip: string; now: Date },
): Promise<{ token: string } & AgentSessionView> {
  const signedIn = await login(loginDepsOf(deps), {
    ability: "agent",
    tokenName: AGENT_TOKEN_NAME,
    deviceName: input.deviceName,
    eligible: (user) => can(user.role, "handle-conversations"),
  }, input);
  return {
    token: signedIn.token.plainText,
    ...agentSessionView({
      expiresAt: signedIn.token.expiresAt,
      deviceName: input.deviceName,
      ...await signedInSubjects(deps.sql, signedIn),
    }),
  };
}
