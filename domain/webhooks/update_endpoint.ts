/** Change an endpoint's URL, description, subscriptions or enabled state; re-enabling clears its failure record. */
import type { AppDeps } from "../deps.ts";
import { updateEndpoint as updateRow } from "../../db/webhook_endpoints.ts";
import { NotFound } from "../errors.ts";
import { checkEndpointUrl } from "./endpoint_url.ts";
import { checkEventTypes } from "./event_types_input.ts";
import { type EndpointView, endpointView } from "./endpoint_view.ts";
import { announceEndpointsChanged } from "./endpoints_changed.ts";
import { type AuditActor, recordAudit } from "../audit/record_audit.ts";

export interface EndpointPatchInput {
  url?: string;
  description?: string;
  events?: string[];
  enabled?: boolean;
}

export async function updateEndpoint(
  deps: AppDeps,
  workspaceId: number,
  id: number,
  input: EndpointPatchInput,
  actor: AuditActor,
): Promise<EndpointView> {
  const now = deps.clock();
  const patch = {
    url: input.url === undefined ? undefined : checkEndpointUrl(deps.config.webhooks, input.url),
    description: input.description?.trim(),
    events: input.events === undefined ? undefined : checkEventTypes(input.events),
    enabled: input.enabled,
  };
  const row = await deps.sql.begin(async (tx) => {
    const row = await updateRow(tx, workspaceId, id, patch, now);
    if (!row) return null;
    // Which fields the request set, and the new state: never the URL's path or query.
    await recordAudit(tx, {
      workspaceId,
      actor,
      action: "webhook.changed",
      target: { type: "webhook", id },
      details: {
        fields: Object.entries(patch).filter(([, v]) => v !== undefined).map(([k]) => k),
        ...(patch.enabled === undefined ? {} : { enabled: patch.enabled }),
      },
      now,
    });
    return row;
  });
  if (!row) throw new NotFound("Webhook endpoint not found.");
  await announceEndpointsChanged(deps, workspaceId);
  return endpointView(row, now);
}
