/** Revokes one of the account's settings tokens: its next request answers 401. */
import type { Sql } from "../../db/client.ts";
import { revokeOwnToken } from "../../db/tokens.ts";
import type { Auth } from "../auth/tokens.ts";
import { NotFound } from "../errors.ts";

export async function revokeApiToken(sql: Sql, auth: Auth, id: number, now: Date): Promise<void> {
  if (!(await revokeOwnToken(sql, auth.workspace.id, auth.user.id, "api", id, now))) {
    throw new NotFound("No API token with that id.");
  }
}
