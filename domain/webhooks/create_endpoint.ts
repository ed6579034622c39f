/**
 * A new webhook endpoint with a fresh signing secret, returned this once (it
 * is stored encrypted under APP_KEY and never shown again).
 */
import type { AppDeps } from "../deps.ts";
import type { Sql } from "../../db/client.ts";
import type { WebhookConfig } from "../../app/config.ts";
import { insertEndpoint } from "../../db/webhook_endpoints.ts";
import { encryptText } from "../auth/secrets.ts";
import { checkEndpointUrl } from "./endpoint_url.ts";
import { checkEventTypes } from "./event_types_input.ts";
import { type EndpointView, endpointView } from "./endpoint_view.ts";
import { generateSecret } from "./signing.ts";
import { announceEndpointsChanged } from "./endpoints_changed.ts";
import { type AuditActor, recordAudit } from "../audit/record_audit.ts";

export interface EndpointInput {
  url: string;
  description?: string;
  events: string[];
  enabled?: boolean;
}

/** What adding an endpoint needs: the server and the admin CLI both have it. */
export interface EndpointStore {
  sql: Sql;
  appKey: CryptoKey;
  webhooks: WebhookConfig;
  now: Date;
}

/**
 * Validate and store, with the audit row (the URL's host, never its path or
 * query, which may carry a receiver's token); the caller tells running
 * instances (the server through its bus).
 */
export async function addEndpoint(
  store: EndpointStore,
  workspaceId: number,
  input: EndpointInput,
  actor: AuditActor,
): Promise<EndpointView & { secret: string }> {
  const url = checkEndpointUrl(store.webhooks, input.url);
  const events = checkEventTypes(input.events);
  const secret = generateSecret();
  const secretEncrypted = await encryptText(store.appKey, secret);
  const row = await store.sql.begin(async (tx) => {
    const row = await insertEndpoint(tx, workspaceId, {
      url,
      description: input.description?.trim() ?? "",
      events,
      enabled: input.enabled ?? true,
      secretEncrypted,
      now: store.now,
    });
    await recordAudit(tx, {
      workspaceId,
      actor,
      action: "webhook.created",
      target: { type: "webhook", id: row.id },
      details: { host: new URL(url).host, events },
      now: store.now,
    });
    return row;
  });
  return { ...endpointView(row, store.now), secret };
}

export async function createEndpoint(
  deps: AppDeps,
  workspaceId: number,
  input: EndpointInput,
  actor: AuditActor,
): Promise<EndpointView & { secret: string }> {
  const store = { sql: deps.sql, appKey: deps.appKey, webhooks: deps.config.webhooks };
  const created = await addEndpoint({ ...store, now: deps.clock() }, workspaceId, input, actor);
  await announceEndpointsChanged(deps, workspaceId);
  return created;
}
