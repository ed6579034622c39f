/** Remove an endpoint with its pending deliveries and their log. */
import type { AppDeps } from "../deps.ts";
import { deleteEndpoint as deleteRow } from "../../db/webhook_endpoints.ts";
import { NotFound } from "../errors.ts";
import { announceEndpointsChanged } from "./endpoints_changed.ts";

export async function deleteEndpoint(
  deps: AppDeps,
  workspaceId: number,
  id: number,
): Promise<{ message: string }> {
  if (!await deleteRow(deps.sql, workspaceId, id)) {
    throw new NotFound("Webhook endpoint not found.");
  }
  await announceEndpointsChanged(deps, workspaceId);
  return { message: "The webhook endpoint was deleted." };
}
