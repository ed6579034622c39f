/**
 * Agent sign-in: the shared password login (one lockout with the portal and
 * web logins, one refusal text) with the agent rule: owners, administrators
 * and agents, never the read-only viewer seat. With two-factor on, the login
 * answers a challenge and `agentTwoFactorLogin` gives the same answer.
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
import { AGENT_TOKEN_NAME, type AgentSessionView, agentSessionView } from "./agent_session.ts";

export type AgentLoginAnswer = { token: string } & AgentSessionView;

/** Who may sign in to the agent API, and how its token is named. */
export function agentSurface(deviceName: string | null): LoginSurface {
  return {
    ability: "agent",
    tokenName: AGENT_TOKEN_NAME,
    deviceName,
    eligible: (user) => can(user.role, "handle-conversations"),
  };
}

async function answerOf(
  deps: AppDeps,
  signedIn: LoginResult,
  deviceName: string | null,
): Promise<AgentLoginAnswer> {
  return {
    token: signedIn.token.plainText,
    ...agentSessionView({
      expiresAt: signedIn.token.expiresAt,
      deviceName,
      ...await signedInSubjects(deps.sql, signedIn),
    }),
  };
}

export async function agentLogin(
  deps: AppDeps,
  input: { email: string; password: string; deviceName: string | null; ip: string; now: Date },
): Promise<AgentLoginAnswer> {
  const signedIn = await login(loginDepsOf(deps), agentSurface(input.deviceName), input);
  return await answerOf(deps, signedIn, input.deviceName);
}

/** The second step: the login's answer, plus the recovery codes after a required enrolment. */
export async function agentTwoFactorLogin(
  deps: AppDeps,
  input: { challenge: string; code: string; ip: string; now: Date },
): Promise<AgentLoginAnswer & { recovery_codes?: string[] }> {
  const done = await completeTwoFactorLogin(loginDepsOf(deps), agentSurface, {
    ...input,
    ability: "agent",
  });
  return {
    ...await answerOf(deps, done, done.deviceName),
    ...(done.recoveryCodes ? { recovery_codes: done.recoveryCodes } : {}),
  };
}
