/**
 * How the dashboard shows a workspace's two integrations: for each service,
 * whether it is linked, to which shop, the credential's last four only, when
 * and by whom it was linked, and the last test's outcome; the storefront also
 * carries its catalogue's sync state.
 */
import type { IntegrationRow, IntegrationService } from "../../db/workspace_integrations.ts";
import type { CatalogueStatus } from "../catalogue/catalogue_status.ts";

export interface IntegrationView {
  service: IntegrationService;
  /** The vendor the service speaks to today. */
  provider: "Shopify" | "Stripe";
  linked: boolean;
  /** The shop's domain (storefront), or null. */
  shop: string | null;
  /** The stored credential's last four characters; the rest is never shown. */
  last_four: string | null;
  linked_at: string | null;
  linked_by: { id: number; name: string } | null;
  /** `untested` until a test ran on the stored credential. */
  state: "not_linked" | "untested" | "connected" | "failing";
  last_check: { ok: boolean; message: string; checked_at: string } | null;
  /** Storefront only: the product catalogue synced from the store. */
  catalogue: Omit<CatalogueStatus, "linked" | "shop"> | null;
}

export const PROVIDER: Record<IntegrationService, IntegrationView["provider"]> = {
  storefront: "Shopify",
  billing: "Stripe",
};

export function integrationView(
  service: IntegrationService,
  row: IntegrationRow | undefined,
  catalogue: CatalogueStatus | null,
): IntegrationView {
  const checked = row?.checked_at && row.check_ok !== null && row.check_message !== null
    ? { ok: row.check_ok, message: row.check_message, checked_at: row.checked_at.toISOString() }
    : null;
  return {
    service,
    provider: PROVIDER[service],
    linked: row !== undefined,
    shop: row?.account ?? null,
    last_four: row?.last_four ?? null,
    linked_at: row?.updated_at.toISOString() ?? null,
    linked_by: row?.linked_by && row.linked_by_name
      ? { id: row.linked_by, name: row.linked_by_name }
      : null,
    state: !row ? "not_linked" : !checked ? "untested" : checked.ok ? "connected" : "failing",
    last_check: checked,
    catalogue: service === "storefront" && catalogue
      ? {
        status: catalogue.status,
        products: catalogue.products,
        synced_at: catalogue.synced_at,
        error: catalogue.error,
      }
      : null,
  };
}
