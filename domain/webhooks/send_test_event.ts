/**
 * "Send test event": a signed `ping` for one endpoint, recorded in the outbox
 * like any event, so the worker sends it with the endpoint's signatures, its
 * retries apply, and it shows in the endpoint's deliveries (docs/webhooks.md).
 * A disabled endpoint is a Conflict: the worker sends nothing to it.
 */
import type { AppDeps } from "../deps.ts";
import { findEndpoint } from "../../db/webhook_endpoints.ts";
import { recordPing } from "../../db/webhook_deliveries.ts";
import { Conflict, NotFound } from "../errors.ts";
import { webhookIdOf } from "./event_identity.ts";
import { wakeWebhookWorkers } from "./wake.ts";

export interface TestEventSent {
  message: string;
  event_id: string;
  delivery_id: number;
}

export async function sendTestEvent(
  deps: AppDeps,
  workspaceId: number,
  endpointId: number,
): Promise<TestEventSent> {
  const endpoint = await findEndpoint(deps.sql, workspaceId, endpointId);
  if (!endpoint) throw new NotFound("Webhook endpoint not found.");
  if (!endpoint.enabled) {
    throw new Conflict("This endpoint is disabled: enable it to send it a test event.");
  }
  const dedupeKey = `ping:${crypto.randomUUID()}`;
  const publicId = await webhookIdOf(dedupeKey);
  const deliveryId = await recordPing(deps.sql, {
    publicId,
    workspaceId,
    endpointId,
    dedupeKey,
    now: deps.clock(),
  });
  // Deleted between the two statements.
  if (deliveryId === null) throw new NotFound("Webhook endpoint not found.");
  await wakeWebhookWorkers(deps);
  return {
    message: "A test event was queued; it appears in this endpoint's deliveries.",
    event_id: publicId,
    delivery_id: deliveryId,
  };
}
