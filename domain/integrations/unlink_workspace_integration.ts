/**
 * Unlink a service from the dashboard: its credential is deleted (a store's
 * catalogue and sync job with it, in one transaction) and customer context
 * stops asking it at once. Idempotent: unlinking what is not linked says so.
 */
import type { AppDeps } from "../deps.ts";
import type { Auth } from "../auth/tokens.ts";
import type { IntegrationService } from "../../db/workspace_integrations.ts";
import { unlinkIntegration } from "../customer_context/integration_credentials.ts";
import { publishEvent } from "../events.ts";
import { type AuditActor, recordAudit } from "../audit/record_audit.ts";
import type { Executor } from "../../db/client.ts";
import { PROVIDER } from "./integration_view.ts";

export async function unlinkWorkspaceIntegration(
  deps: Pick<AppDeps, "sql" | "bus" | "log">,
  auth: Auth,
  service: IntegrationService,
  audit: { actor: AuditActor; now: Date },
): Promise<{ message: string }> {
  const workspaceId = auth.workspace.id;
  const { unlinked } = await deps.sql.begin(async (tx) => {
    const result = await unlinkIntegration(tx, workspaceId, service);
    if (result.unlinked) await recordIntegrationUnlinked(tx, workspaceId, service, audit);
    return result;
  });
  const what = `The ${service} (${PROVIDER[service]})`;
  if (!unlinked) return { message: `${what} was not linked.` };
  deps.log.info("integration unlinked", { workspace: workspaceId, service, user: auth.user.id });
  await publishEvent(deps, {
    type: "integration.changed",
    workspaceId,
    service,
    action: "unlinked",
    actorUserId: auth.user.id,
  });
  return {
    message: service === "storefront"
      ? `${what} was unlinked; its product catalogue was removed.`
      : `${what} was unlinked.`,
  };
}

/** The audit row of an unlink that removed a credential (an idempotent no-op leaves none). */
export async function recordIntegrationUnlinked(
  tx: Executor,
  workspaceId: number,
  service: IntegrationService,
  audit: { actor: AuditActor; now: Date },
): Promise<void> {
  await recordAudit(tx, {
    workspaceId,
    actor: audit.actor,
    action: "integration.unlinked",
    target: { type: "integration", id: service },
    now: audit.now,
  });
}
