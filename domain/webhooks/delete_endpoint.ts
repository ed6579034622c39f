/** Remove an endpoint with its pending deliveries and their log. */
import type { AppDeps } from "../deps.ts";
import { deleteEndpoint as deleteRow } from "../../db/webhook_endpoints.ts";
import { NotFound } from "../errors.ts";
import { announceEndpointsChanged } from "./endpoints_changed.ts";
import { type AuditActor, recordAudit } from "../audit/record_audit.ts";

export async function deleteEndpoint(
  deps: AppDeps,
  workspaceId: number,
  id: number,
  actor: AuditActor,
): Promise<{ message: string }> {
  const now = deps.clock();
  const deleted = await deps.sql.begin(async (tx) => {
    if (!await deleteRow(tx, workspaceId, id)) return false;
    await recordAudit(tx, {
      workspaceId,
      actor,
      action: "webhook.deleted",
      target: { type: "webhook", id },
      now,
    });
    return true;
  });
  if (!deleted) throw new NotFound("Webhook endpoint not found.");
  await announceEndpointsChanged(deps, workspaceId);
  return { message: "The webhook endpoint was deleted." };
}
