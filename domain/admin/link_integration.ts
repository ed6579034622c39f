/**
 * Link or unlink a workspace's customer-context services from the admin CLI:
 * `storefront` (a Shopify store: shop domain and Admin API access token) and
 * `billing` (a Stripe secret key). The credential is stored encrypted.
 */
import type { IntegrationService } from "../../db/workspace_integrations.ts";
import {
  linkIntegration as link,
  unlinkIntegration as unlink,
} from "../customer_context/integration_credentials.ts";
import { type AdminDeps, requireWorkspace } from "./admin_deps.ts";

export async function linkIntegration(
  deps: AdminDeps,
  input: { workspace: string; service: string; shop?: string; credential: string },
) {
  const ws = await requireWorkspace(deps.sql, input.workspace);
  const linked = await link(deps.sql, deps.appKey, ws.id, {
    service: input.service as IntegrationService,
    shop: input.shop ?? null,
    credential: input.credential,
  });
  return { workspace: ws.slug, ...linked };
}

export async function unlinkIntegration(
  deps: AdminDeps,
  input: { workspace: string; service: string },
) {
  const ws = await requireWorkspace(deps.sql, input.workspace);
  return {
    workspace: ws.slug,
    // One transaction: the link, its catalogue and its sync job go together.
    ...(await deps.sql.begin((tx) => unlink(tx, ws.id, input.service as IntegrationService))),
  };
}
