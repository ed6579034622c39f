/** The signed-in account's settings tokens, newest first, revoked and expired included. */
import type { Sql } from "../../db/client.ts";
import { listOwnTokens } from "../../db/tokens.ts";
import type { Auth } from "../auth/tokens.ts";
import { type ApiTokenView, apiTokenView } from "./api_token_view.ts";

export async function listApiTokens(sql: Sql, auth: Auth, now: Date): Promise<ApiTokenView[]> {
  const rows = await listOwnTokens(sql, auth.workspace.id, auth.user.id, "api");
  return rows.map((r) => apiTokenView(r, now));
}
