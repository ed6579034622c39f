/** A new settings token for the signed-in account; its plain text is in the answer and nowhere else. */
import type { Sql } from "../../db/client.ts";
import type { Auth } from "../auth/tokens.ts";
import { issueLimitedToken } from "../auth/issue_limited_token.ts";
import { type AuditActor, recordAudit } from "../audit/record_audit.ts";
import { type ApiTokenView, apiTokenView } from "./api_token_view.ts";

export async function createApiToken(
  sql: Sql,
  auth: Auth,
  name: string,
  now: Date,
  actor: AuditActor,
): Promise<{ token: string; data: ApiTokenView }> {
  const issued = await issueLimitedToken(sql, {
    workspaceId: auth.workspace.id,
    userId: auth.user.id,
    email: auth.user.email,
    name,
    ability: "api",
    now,
  }, (tx, token) =>
    recordAudit(tx, {
      workspaceId: auth.workspace.id,
      actor,
      action: "api_token.created",
      target: { type: "api_token", id: token.id },
      details: { name },
      now,
    }));
  const row = {
    id: issued.id,
    name,
    created_at: now,
    last_used_at: null,
    expires_at: issued.expiresAt,
    revoked_at: null,
  };
  return { token: issued.plainText, data: apiTokenView(row, now) };
}
