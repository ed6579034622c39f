/**
 * A new signing secret, shown once. The current one keeps signing beside it
 * for `overlapHours` (default 24, 0 ends it at once), so receivers can switch
 * without missing a delivery: each request carries both signatures meanwhile.
 */
import type { AppDeps } from "../deps.ts";
import type { Sql } from "../../db/client.ts";
import { type AuditActor, recordAudit } from "../audit/record_audit.ts";
import { rotateEndpointSecret as rotateRow } from "../../db/webhook_endpoints.ts";
import { encryptText } from "../auth/secrets.ts";
import { NotFound } from "../errors.ts";
import { type EndpointView, endpointView } from "./endpoint_view.ts";
import { generateSecret } from "./signing.ts";

export const DEFAULT_OVERLAP_HOURS = 24;

export async function rotateEndpointSecret(
  deps: AppDeps,
  workspaceId: number,
  id: number,
  actor: AuditActor,
  overlapHours = DEFAULT_OVERLAP_HOURS,
): Promise<EndpointView & { secret: string }> {
  return await rotateSecret(
    { sql: deps.sql, appKey: deps.appKey, now: deps.clock() },
    workspaceId,
    id,
    actor,
    overlapHours,
  );
}

/** The rotation itself, for the server and the admin CLI. */
export async function rotateSecret(
  deps: { sql: Sql; appKey: CryptoKey; now: Date },
  workspaceId: number,
  id: number,
  actor: AuditActor,
  overlapHours = DEFAULT_OVERLAP_HOURS,
): Promise<EndpointView & { secret: string }> {
  const now = deps.now;
  const secret = generateSecret();
  const until = new Date(now.getTime() + overlapHours * 3_600_000);
  const encrypted = await encryptText(deps.appKey, secret);
  const row = await deps.sql.begin(async (tx) => {
    const row = await rotateRow(tx, workspaceId, id, encrypted, until, now);
    if (!row) return null;
    await recordAudit(tx, {
      workspaceId,
      actor,
      action: "webhook.secret_rotated",
      target: { type: "webhook", id },
      details: { overlap_hours: overlapHours },
      now,
    });
    return row;
  });
  if (!row) throw new NotFound("Webhook endpoint not found.");
  return { ...endpointView(row, now), secret };
}
