/** Change an endpoint's URL, description, subscriptions or enabled state; re-enabling clears its failure record. */
import type { AppDeps } from "../deps.ts";
import { updateEndpoint as updateRow } from "../../db/webhook_endpoints.ts";
import { NotFound } from "../errors.ts";
import { checkEndpointUrl } from "./endpoint_url.ts";
import { checkEventTypes } from "./event_types_input.ts";
import { type EndpointView, endpointView } from "./endpoint_view.ts";
import { announceEndpointsChanged } from "./endpoints_changed.ts";

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
): Promise<EndpointView> {
  const now = deps.clock();
  const row = await updateRow(deps.sql, workspaceId, id, {
    url: input.url === undefined ? undefined : checkEndpointUrl(deps.config.webhooks, input.url),
    description: input.description?.trim(),
    events: input.events === undefined ? undefined : checkEventTypes(input.events),
    enabled: input.enabled,
  }, now);
  if (!row) throw new NotFound("Webhook endpoint not found.");
  await announceEndpointsChanged(deps, workspaceId);
  return endpointView(row, now);
}
