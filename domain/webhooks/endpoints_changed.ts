/** After an endpoint changes: every instance's event recorder reloads the workspace's subscriptions. */
import type { AppDeps } from "../deps.ts";
import { publishEvent } from "../events.ts";

export async function announceEndpointsChanged(deps: AppDeps, workspaceId: number): Promise<void> {
  await publishEvent(deps, { type: "webhook_endpoints.changed", workspaceId });
}
