/**
 * A fresh agent token for the same user and device, in the login shape. The
 * old token is left to expire rather than revoked, so a request already in
 * flight with it (or a second tab) is not cut off mid-renewal. The device's
 * push subscriptions move to the new token, so logging out with it removes
 * them and they do not lapse when the old token expires.
 */
import type { AppDeps } from "../deps.ts";
import { type Auth, issueToken } from "../auth/tokens.ts";
import { moveSubscriptionsToToken } from "../../db/push_subscriptions.ts";
import { AGENT_TOKEN_NAME, type AgentSessionView, agentSessionView } from "./agent_session.ts";

export async function refreshAgentToken(
  deps: AppDeps,
  auth: Auth,
  now: Date,
): Promise<{ token: string } & AgentSessionView> {
  const token = await deps.sql.begin(async (tx) => {
    const issued = await issueToken(tx, {
      workspaceId: auth.workspace.id,
      userId: auth.user.id,
      name: AGENT_TOKEN_NAME,
      ability: "agent",
      now,
      deviceName: auth.deviceName,
    });
    await moveSubscriptionsToToken(tx, auth.tokenId, issued.id);
    return issued;
  });
  return {
    token: token.plainText,
    ...agentSessionView({ ...auth, expiresAt: token.expiresAt }),
  };
}
