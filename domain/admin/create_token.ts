/**
 * Issue a token for a user, as the dashboard's "REST API tokens" panel does:
 * ability `api` unless told otherwise, the plain text returned once, and at
 * most 20 active tokens of one ability per account (SPEC limits), counted and
 * inserted in one transaction so two calls cannot both take the last slot.
 */
import type { Ability } from "../../db/tokens.ts";
import { countActiveTokens } from "../../db/tokens.ts";
import { issueToken } from "../auth/tokens.ts";
import { Invalid } from "../errors.ts";
import { type AdminDeps, requireUser } from "./admin_deps.ts";

export const MAX_ACTIVE_TOKENS = 20;
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
  return await deps.sql.begin(async (tx) => {
    // Serialise issuing per user, so the count below stays true until commit.
    await tx`SELECT pg_advisory_xact_lock(7241002, ${user.id}::int)`;
    const active = await countActiveTokens(tx, user.workspace_id, user.id, ability, deps.now);
    if (active >= MAX_ACTIVE_TOKENS) {
      throw Invalid.field(
        "name",
        `${user.email} already has ${MAX_ACTIVE_TOKENS} active ${ability} tokens; revoke one first.`,
      );
    }
    const issued = await issueToken(tx, {
      workspaceId: user.workspace_id,
      userId: user.id,
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
  });
}
