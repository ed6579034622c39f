/**
 * Link (or replace) the storefront or billing credential from the dashboard:
 * stored encrypted under APP_KEY in one transaction with the catalogue's sync
 * job (a store), then, after commit, the workers are woken for that sync and
 * `integration.changed` is published. The answer shows the last four only.
 */
import type { AppDeps } from "../deps.ts";
import type { Executor } from "../../db/client.ts";
import type { Auth } from "../auth/tokens.ts";
import type { IntegrationService } from "../../db/workspace_integrations.ts";
import { linkIntegration } from "../customer_context/integration_credentials.ts";
import { wakeWorkers } from "../jobs/job_queue.ts";
import { CATALOGUE_SYNC } from "../catalogue/catalogue_jobs.ts";
import { publishEvent } from "../events.ts";
import { type AuditActor, recordAudit } from "../audit/record_audit.ts";
import { listWorkspaceIntegrations } from "./list_integrations.ts";
import type { IntegrationView } from "./integration_view.ts";

export async function linkWorkspaceIntegration(
  deps: Pick<AppDeps, "sql" | "kv" | "appKey" | "bus" | "log">,
  auth: Auth,
  input: { service: IntegrationService; shop?: string | null; credential: string },
  audit: { actor: AuditActor; now: Date },
): Promise<IntegrationView> {
  const workspaceId = auth.workspace.id;
  const linked = await deps.sql.begin(async (tx) => {
    const linked = await linkIntegration(tx, deps.appKey, workspaceId, input, {
      linkedBy: auth.user.id,
    });
    await recordIntegrationLinked(tx, workspaceId, linked, audit);
    return linked;
  });
  if (linked.service === "storefront") await wakeWorkers(deps.kv, CATALOGUE_SYNC);
  deps.log.info("integration linked", {
    workspace: workspaceId,
    service: linked.service,
    account: linked.account,
    user: auth.user.id,
  });
  await publishEvent(deps, {
    type: "integration.changed",
    workspaceId,
    service: linked.service,
    action: "linked",
    actorUserId: auth.user.id,
  });
  const all = await listWorkspaceIntegrations(deps.sql, workspaceId);
  return all.find((v) => v.service === linked.service)!;
}

/** The audit row of a link: the service and the shop's domain, never the credential. */
export async function recordIntegrationLinked(
  tx: Executor,
  workspaceId: number,
  linked: { service: IntegrationService; account: string | null },
  audit: { actor: AuditActor; now: Date },
): Promise<void> {
  await recordAudit(tx, {
    workspaceId,
    actor: audit.actor,
    action: "integration.linked",
    target: { type: "integration", id: linked.service },
    details: linked.account ? { shop: linked.account } : {},
    now: audit.now,
  });
}
