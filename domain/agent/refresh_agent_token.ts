/**
 * A fresh agent token for the same user and device, in the login shape. The
 * old token is left to expire rather than revoked, so a request already in
 * flight with it (or a second tab) is not cut off mid-renewal.
 */
import type { AppDeps } from "../../app/deps.ts";
import { type Auth, issueToken } from "../auth/tokens.ts";
import { AGENT_TOKEN_NAME, type AgentSessionView, agentSessionView } from "./agent_session.ts";

export async function refreshAgentToken(
  deps: AppDeps,
  auth: Auth,
  now: Date,
): Promise<{ token: string } & AgentSessionView> {
  const token = await issueToken(deps.sql, {
    workspaceId: auth.workspace.id,
    userId: auth.user.id,
    name: AGENT_TOKEN_NAME,
    ability: "agent",
    now,
    deviceName: auth.deviceName,
  });
  return {
    token: token.plainText,
    ...agentSessionView({ ...auth, expiresAt: token.expiresAt }),
  };
}
