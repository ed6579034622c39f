/**
 * Link or unlink a workspace's customer-context services from the admin CLI:
 * `storefront` (a Shopify store: shop domain and Admin API access token) and
 * `billing` (a Stripe secret key). The credential is stored encrypted; the
 * change and its audit row (actor "admin CLI") commit together.
 */
import type { IntegrationService } from "../../db/workspace_integrations.ts";
import {
  linkIntegration as link,
  unlinkIntegration as unlink,
} from "../customer_context/integration_credentials.ts";
import { recordIntegrationLinked } from "../integrations/link_workspace_integration.ts";
import { recordIntegrationUnlinked } from "../integrations/unlink_workspace_integration.ts";
import { adminCliActor, type AdminDeps, requireWorkspace } from "./admin_deps.ts";

export async function linkIntegration(
  deps: AdminDeps,
  input: { workspace: string; service: string; shop?: string; credential: string },
) {
  const ws = await requireWorkspace(deps.sql, input.workspace);
  const audit = { actor: adminCliActor(), now: deps.now };
  const linked = await deps.sql.begin(async (tx) => {
    const linked = await link(tx, deps.appKey, ws.id, {
      service: input.service as IntegrationService,
      shop: input.shop ?? null,
      credential: input.credential,
    });
    await recordIntegrationLinked(tx, ws.id, linked, audit);
    return linked;
  });
  return { workspace: ws.slug, ...linked };
}

export async function unlinkIntegration(
  deps: AdminDeps,
  input: { workspace: string; service: string },
) {
  const ws = await requireWorkspace(deps.sql, input.workspace);
  const audit = { actor: adminCliActor(), now: deps.now };
  // One transaction: the link, its catalogue, its sync job and the audit row go together.
  const result = await deps.sql.begin(async (tx) => {
    const result = await unlink(tx, ws.id, input.service as IntegrationService);
    if (result.unlinked) await recordIntegrationUnlinked(tx, ws.id, result.service, audit);
    return result;
  });
  return { workspace: ws.slug, ...result };
}
