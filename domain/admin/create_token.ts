/**
 * Issue a token for a user, as the dashboard's "REST API tokens" panel does:
 * ability `api` unless told otherwise, the plain text returned once, within
 * the account limit (issue_limited_token.ts).
 */
import type { Ability } from "../../db/tokens.ts";
import { issueLimitedToken } from "../auth/issue_limited_token.ts";
import { Invalid } from "../errors.ts";
import { type AdminDeps, requireUser } from "./admin_deps.ts";

export { MAX_ACTIVE_TOKENS } from "../auth/issue_limited_token.ts";
const ABILITIES: readonly Ability[] = ["api", "portal", "agent", "dashboard"];

export interface CreatedToken {
  id: number;
  name: string;
  ability: Ability;
  user: string;
  expires_at: string;
  /** `<id>|<secret>`: shown here once, stored only as a hash. */
  token: string;
}

export async function createToken(
  deps: AdminDeps,
  input: { email: string; name: string; ability?: string },
): Promise<CreatedToken> {
  const ability = (input.ability ?? "api") as Ability;
  if (!ABILITIES.includes(ability)) {
    throw Invalid.field("ability", `The ability must be one of ${ABILITIES.join(", ")}.`);
  }
  const name = input.name.trim();
  if (!name || name.length > 120) {
    throw Invalid.field("name", "The name field is required (up to 120 characters).");
  }
  const user = await requireUser(deps.sql, input.email);
  const issued = await issueLimitedToken(deps.sql, {
    workspaceId: user.workspace_id,
    userId: user.id,
    email: user.email,
    name,
    ability,
    now: deps.now,
  });
  return {
    id: issued.id,
    name,
    ability,
    user: user.email,
    expires_at: issued.expiresAt.toISOString(),
    token: issued.plainText,
  };
}
