/**
 * Dashboard sign-out: the token used is revoked at once (other tabs and
 * devices keep theirs), and the realtime subscription it authorised (the
 * dashboard channel) ends on every instance.
 */
import type { AppDeps } from "../deps.ts";
import { type Auth, revokeCurrentToken } from "../auth/tokens.ts";
import { publishEvent } from "../events.ts";

export async function dashboardLogout(
  deps: Pick<AppDeps, "sql" | "bus" | "log">,
  auth: Auth,
  now: Date,
): Promise<void> {
  await revokeCurrentToken(deps.sql, auth, now);
  await publishEvent(deps, {
    type: "token.revoked",
    workspaceId: auth.workspace.id,
    tokenId: auth.tokenId,
  });
}
