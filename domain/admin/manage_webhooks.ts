/**
 * Webhook endpoints from the admin CLI: list, add (the secret printed once),
 * remove, rotate. A running server picks a change up within a minute (its
 * subscription cache's lifetime), as the CLI has no event bus to tell it.
 */
import { deleteEndpoint, listEndpoints } from "../../db/webhook_endpoints.ts";
import { addEndpoint } from "../webhooks/create_endpoint.ts";
import { endpointView } from "../webhooks/endpoint_view.ts";
import { rotateSecret } from "../webhooks/rotate_endpoint_secret.ts";
import { Invalid, NotFound } from "../errors.ts";
import { recordAudit } from "../audit/record_audit.ts";
import { adminCliActor, type AdminDeps, requireWorkspace } from "./admin_deps.ts";

const STRICT = {
  allowHosts: [],
  timeoutMs: 10_000,
  retryBaseMs: 5_000,
  retryWindowSeconds: 86_400,
  concurrency: 0,
  pollMs: 1_000,
  leaseSeconds: 60,
  sweepSeconds: 30,
};

function endpointId(raw: string): number {
  const id = Number(raw);
  if (!Number.isInteger(id) || id < 1) {
    throw Invalid.field("id", "The id must be a positive integer.");
  }
  return id;
}

export async function listWebhooks(deps: AdminDeps, input: { workspace: string }) {
  const ws = await requireWorkspace(deps.sql, input.workspace);
  return (await listEndpoints(deps.sql, ws.id)).map((row) => endpointView(row, deps.now));
}

export async function addWebhook(
  deps: AdminDeps,
  input: { workspace: string; url: string; events: string; description?: string },
) {
  const ws = await requireWorkspace(deps.sql, input.workspace);
  return await addEndpoint({ ...deps, webhooks: deps.webhooks ?? STRICT }, ws.id, {
    url: input.url,
    events: input.events.split(",").map((e) => e.trim()).filter(Boolean),
    description: input.description,
  }, adminCliActor());
}

export async function removeWebhook(deps: AdminDeps, input: { workspace: string; id: string }) {
  const ws = await requireWorkspace(deps.sql, input.workspace);
  const id = endpointId(input.id);
  const deleted = await deps.sql.begin(async (tx) => {
    if (!await deleteEndpoint(tx, ws.id, id)) return false;
    await recordAudit(tx, {
      workspaceId: ws.id,
      actor: adminCliActor(),
      action: "webhook.deleted",
      target: { type: "webhook", id },
      now: deps.now,
    });
    return true;
  });
  if (!deleted) throw new NotFound("Webhook endpoint not found.");
  return { message: "The webhook endpoint was deleted." };
}

export async function rotateWebhook(
  deps: AdminDeps,
  input: { workspace: string; id: string; overlapHours?: string },
) {
  const ws = await requireWorkspace(deps.sql, input.workspace);
  const hours = input.overlapHours === undefined ? undefined : Number(input.overlapHours);
  if (hours !== undefined && (!Number.isInteger(hours) || hours < 0 || hours > 168)) {
    throw Invalid.field("overlap-hours", "The overlap must be 0 to 168 hours.");
  }
  return await rotateSecret(deps, ws.id, endpointId(input.id), adminCliActor(), hours);
}
