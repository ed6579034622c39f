/**
 * Issue a token within the account limit (SPEC: up to 20 per account): at
 * most 20 active tokens of one ability per user, counted and inserted in one
 * transaction under a per-user lock, so two calls cannot both take the last
 * slot. The admin CLI and the dashboard's API-token panel both issue here.
 */
import type { Sql, Tx } from "../../db/client.ts";
import { type Ability, countActiveTokens } from "../../db/tokens.ts";
import { Invalid } from "../errors.ts";
import { type IssuedToken, issueToken } from "./tokens.ts";

export const MAX_ACTIVE_TOKENS = 20;

export async function issueLimitedToken(
  sql: Sql,
  input: {
    workspaceId: number;
    userId: number;
    email: string;
    name: string;
    ability: Ability;
    now: Date;
  },
  /** Runs in the issuing transaction (the audit row of a created token commits with it). */
  alongside?: (tx: Tx, issued: IssuedToken) => Promise<void>,
): Promise<IssuedToken> {
  return await sql.begin(async (tx) => {
    // Serialise issuing per user, so the count below stays true until commit.
    await tx`SELECT pg_advisory_xact_lock(7241002, ${input.userId}::int)`;
    const active = await countActiveTokens(
      tx,
      input.workspaceId,
      input.userId,
      input.ability,
      input.now,
    );
    if (active >= MAX_ACTIVE_TOKENS) {
      throw Invalid.field(
        "name",
        `${input.email} already has ${MAX_ACTIVE_TOKENS} active ${input.ability} tokens; ` +
          "revoke one first.",
      );
    }
    const issued = await issueToken(tx, {
      workspaceId: input.workspaceId,
      userId: input.userId,
      name: input.name,
      ability: input.ability,
      now: input.now,
    });
    await alongside?.(tx, issued);
    return issued;
  });
}
