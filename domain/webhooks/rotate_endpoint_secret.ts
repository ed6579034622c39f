/**
 * A new signing secret, shown once. The current one keeps signing beside it
 * for `overlapHours` (default 24, 0 ends it at once), so receivers can switch
 * without missing a delivery: each request carries both signatures meanwhile.
 */
import type { AppDeps } from "../deps.ts";
import type { Executor } from "../../db/client.ts";
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
  overlapHours = DEFAULT_OVERLAP_HOURS,
): Promise<EndpointView & { secret: string }> {
  return await rotateSecret(
    { sql: deps.sql, appKey: deps.appKey, now: deps.clock() },
    workspaceId,
    id,
    overlapHours,
  );
}

/** The rotation itself, for the server and the admin CLI. */
export async function rotateSecret(
  deps: { sql: Executor; appKey: CryptoKey; now: Date },
  workspaceId: number,
  id: number,
  overlapHours = DEFAULT_OVERLAP_HOURS,
): Promise<EndpointView & { secret: string }> {
  const now = deps.now;
  const secret = generateSecret();
  const until = new Date(now.getTime() + overlapHours * 3_600_000);
  const row = await rotateRow(
    deps.sql,
    workspaceId,
    id,
    await encryptText(deps.appKey, secret),
    until,
    now,
  );
  if (!row) throw new NotFound("Webhook endpoint not found.");
  return { ...endpointView(row, now), secret };
}
