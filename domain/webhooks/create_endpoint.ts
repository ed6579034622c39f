/**
 * A new webhook endpoint with a fresh signing secret, returned this once (it
 * is stored encrypted under APP_KEY and never shown again).
 */
import type { AppDeps } from "../deps.ts";
import { insertEndpoint } from "../../db/webhook_endpoints.ts";
import { encryptText } from "../auth/secrets.ts";
import { checkEndpointUrl } from "./endpoint_url.ts";
import { checkEventTypes } from "./event_types_input.ts";
import { type EndpointView, endpointView } from "./endpoint_view.ts";
import { generateSecret } from "./signing.ts";
import { announceEndpointsChanged } from "./endpoints_changed.ts";

export interface EndpointInput {
  url: string;
  description?: string;
  events: string[];
  enabled?: boolean;
}

export async function createEndpoint(
  deps: AppDeps,
  workspaceId: number,
  input: EndpointInput,
): Promise<EndpointView & { secret: string }> {
  const url = checkEndpointUrl(deps.config.webhooks, input.url);
  const events = checkEventTypes(input.events);
  const secret = generateSecret();
  const now = deps.clock();
  const row = await insertEndpoint(deps.sql, workspaceId, {
    url,
    description: input.description?.trim() ?? "",
    events,
    enabled: input.enabled ?? true,
    secretEncrypted: await encryptText(deps.appKey, secret),
    now,
  });
  await announceEndpointsChanged(deps, workspaceId);
  return { ...endpointView(row, now), secret };
}
