/** Agent sign-out: the token used is revoked at once; other devices stay signed in. */
import type { AppDeps } from "../../app/deps.ts";
import { type Auth, revokeCurrentToken } from "../auth/tokens.ts";

export async function agentLogout(deps: AppDeps, auth: Auth, now: Date): Promise<void> {
  await revokeCurrentToken(deps.sql, auth, now);
}
