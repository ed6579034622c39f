/**
 * Agent sign-out: the token used is revoked at once; other devices stay
 * signed in. The push subscriptions this token registered go with it, so a
 * signed-out device stops receiving alerts, and so do the realtime channels it
 * authorised, on every instance.
 */
import type { AppDeps } from "../deps.ts";
import { deleteSubscriptionsOfToken } from "../../db/push_subscriptions.ts";
import { type Auth, revokeCurrentToken } from "../auth/tokens.ts";
import { publishEvent } from "../events.ts";

export async function agentLogout(deps: AppDeps, auth: Auth, now: Date): Promise<void> {
  await deps.sql.begin(async (tx) => {
    await revokeCurrentToken(tx, auth, now);
    await deleteSubscriptionsOfToken(tx, auth.tokenId);
  });
  await publishEvent(deps, {
    type: "token.revoked",
    workspaceId: auth.workspace.id,
    tokenId: auth.tokenId,
  });
}
