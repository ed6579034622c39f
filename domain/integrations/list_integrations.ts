/** The Integrations screen's list: both services, linked or not, in a fixed order. */
import type { Executor } from "../../db/client.ts";
import { listIntegrations } from "../../db/workspace_integrations.ts";
import { findCatalogueSync } from "../../db/catalogue.ts";
import { catalogueStatusOf } from "../catalogue/catalogue_status.ts";
import { SERVICES } from "../customer_context/integration_credentials.ts";
import { type IntegrationView, integrationView } from "./integration_view.ts";

export async function listWorkspaceIntegrations(
  sql: Executor,
  workspaceId: number,
): Promise<IntegrationView[]> {
  const [rows, sync] = await Promise.all([
    listIntegrations(sql, workspaceId),
    findCatalogueSync(sql, workspaceId),
  ]);
  const store = rows.find((r) => r.service === "storefront");
  const catalogue = catalogueStatusOf(store, sync);
  return SERVICES.map((service) =>
    integrationView(service, rows.find((r) => r.service === service), catalogue)
  );
}
