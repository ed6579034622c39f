/**
 * Send a delivery again now, under the same webhook-id and body, with a fresh
 * retry window. A delivery in flight is a Conflict (it is being sent).
 */
import type { AppDeps } from "../deps.ts";
import { deliveryExists, redeliver as redeliverRow } from "../../db/webhook_deliveries.ts";
import { Conflict, NotFound } from "../errors.ts";
import { wakeWebhookWorkers } from "./wake.ts";

export async function redeliver(
  deps: AppDeps,
  workspaceId: number,
  endpointId: number,
  deliveryId: number,
): Promise<{ message: string }> {
  if (await redeliverRow(deps.sql, workspaceId, endpointId, deliveryId, deps.clock())) {
    await wakeWebhookWorkers(deps);
    return { message: "The delivery was queued to be sent again." };
  }
  if (await deliveryExists(deps.sql, workspaceId, endpointId, deliveryId)) {
    throw new Conflict("The delivery is being sent right now; try again when it is done.");
  }
  throw new NotFound("Webhook delivery not found.");
}
