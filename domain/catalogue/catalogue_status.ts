/**
 * The portal's view of the workspace's catalogue: whether a store is linked,
 * the last sync's state and product count, and an on-demand sync.
 */
import type { Executor } from "../../db/client.ts";
import { type CatalogueSync, findCatalogueSync, setCatalogueSync } from "../../db/catalogue.ts";
import { type IntegrationRow, listIntegrations } from "../../db/workspace_integrations.ts";
import type { Kv } from "../../kv/kv.ts";
import { Invalid } from "../errors.ts";
import { wakeWorkers } from "../jobs/job_queue.ts";
import { CATALOGUE_SYNC, enqueueCatalogueSync } from "./catalogue_jobs.ts";

export interface CatalogueStatus {
  linked: boolean;
  /** The shop's domain, or null when no store is linked. */
  shop: string | null;
  /** `none` before the first sync; `pending` while one is queued or retried. */
  status: "none" | "pending" | "syncing" | "ready" | "failed";
  products: number;
  synced_at: string | null;
  error: string | null;
}

export async function catalogueStatus(
  sql: Executor,
  workspaceId: number,
): Promise<CatalogueStatus> {
  const [store, sync] = await Promise.all([
    listIntegrations(sql, workspaceId).then((all) => all.find((i) => i.service === "storefront")),
    findCatalogueSync(sql, workspaceId),
  ]);
  return catalogueStatusOf(store, sync);
}

/** The status from the linked store's row and the last sync's, read by the caller. */
export function catalogueStatusOf(
  store: IntegrationRow | undefined,
  sync: CatalogueSync | null,
): CatalogueStatus {
  return {
    linked: store !== undefined,
    shop: store?.account ?? null,
    status: sync?.status ?? (store ? "pending" : "none"),
    products: sync?.products ?? 0,
    synced_at: sync?.synced_at?.toISOString() ?? null,
    error: sync?.last_error ?? null,
  };
}

export const NOT_LINKED = "No store is linked to this workspace.";

/** Queue a sync now (202-style: it runs in the background). */
export async function requestCatalogueSync(
  deps: { sql: Executor; kv: Kv },
  workspaceId: number,
): Promise<CatalogueStatus> {
  const store = (await listIntegrations(deps.sql, workspaceId))
    .find((i) => i.service === "storefront");
  if (!store) throw new Invalid(NOT_LINKED, { storefront: [NOT_LINKED] });
  await enqueueCatalogueSync(deps.sql, workspaceId);
  await setCatalogueSync(deps.sql, workspaceId, { status: "pending" });
  await wakeWorkers(deps.kv, CATALOGUE_SYNC);
  return await catalogueStatus(deps.sql, workspaceId);
}
