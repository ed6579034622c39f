/** Revoke a token by id; it answers 401 from the next request on. */
import { findTokenForAuth, revokeToken as revokeRow } from "../../db/tokens.ts";
import { NotFound } from "../errors.ts";
import type { AdminDeps } from "./admin_deps.ts";

export async function revokeToken(
  deps: AdminDeps,
  input: { id: number },
): Promise<{ id: number; revoked: true; user: string }> {
  const row = Number.isSafeInteger(input.id) ? await findTokenForAuth(deps.sql, input.id) : null;
  if (!row) throw new NotFound(`No token with id ${input.id}.`);
  await revokeRow(deps.sql, row.workspace_id, row.token_id, deps.now);
  return { id: row.token_id, revoked: true, user: row.user_email };
}
