/** A workspace's endpoints, or one of them (NotFound for another workspace's). */
import type { AppDeps } from "../deps.ts";
import { findEndpoint, listEndpoints as listRows } from "../../db/webhook_endpoints.ts";
import { NotFound } from "../errors.ts";
import { type EndpointView, endpointView } from "./endpoint_view.ts";

export async function listEndpoints(deps: AppDeps, workspaceId: number): Promise<EndpointView[]> {
  const now = deps.clock();
  return (await listRows(deps.sql, workspaceId)).map((row) => endpointView(row, now));
}

export async function showEndpoint(
  deps: AppDeps,
  workspaceId: number,
  id: number,
): Promise<EndpointView> {
  const row = await findEndpoint(deps.sql, workspaceId, id);
  if (!row) throw new NotFound("Webhook endpoint not found.");
  return endpointView(row, deps.clock());
}
