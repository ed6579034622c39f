/**
 * Linking a storefront (Shopify: shop domain and Admin API access token) or
 * billing (Stripe: secret key) to a workspace. The credential is encrypted
 * under APP_KEY like provider keys and never shown again: only its last four
 * characters.
 */
import type { Executor } from "../../db/client.ts";
import {
  deleteIntegration,
  type IntegrationRow,
  type IntegrationService,
  upsertIntegration,
} from "../../db/workspace_integrations.ts";
import { decryptText, encryptText } from "../auth/secrets.ts";
import { Invalid } from "../errors.ts";
import { deleteCatalogue } from "../../db/catalogue.ts";
import { cancelCatalogueSync, enqueueCatalogueSync } from "../catalogue/catalogue_jobs.ts";

export const SERVICES: IntegrationService[] = ["storefront", "billing"];

export interface IntegrationLink {
  service: IntegrationService;
  /** Storefront: the shop's domain, e.g. `acme.myshopify.com`. */
  shop?: string | null;
  /** Storefront: Admin API access token; billing: secret key. */
  credential: string;
}

const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)+$/;

export async function linkIntegration(
  sql: Executor,
  appKey: CryptoKey,
  workspaceId: number,
  link: IntegrationLink,
): Promise<{ service: IntegrationService; account: string | null; last_four: string }> {
  if (!SERVICES.includes(link.service)) {
    throw Invalid.field("service", "The service must be storefront or billing.");
  }
  const credential = link.credential.trim();
  if (!credential || credential.length > 300) {
    throw Invalid.field("credential", "The credential must be 1 to 300 characters.");
  }
  let account: string | null = null;
  if (link.service === "storefront") {
    account = (link.shop ?? "").trim().toLowerCase().replace(/^https?:\/\//, "").replace(
      /\/+$/,
      "",
    );
    if (!SHOP_DOMAIN.test(account)) {
      throw Invalid.field("shop", "The shop must be a domain such as acme.myshopify.com.");
    }
  }
  const lastFour = credential.slice(-4);
  await upsertIntegration(sql, workspaceId, {
    service: link.service,
    account,
    ciphertext: await encryptText(appKey, credential),
    lastFour,
  });
  // A linked store's catalogue is synced at once, then periodically (domain/catalogue).
  if (link.service === "storefront") await enqueueCatalogueSync(sql, workspaceId);
  return { service: link.service, account, last_four: lastFour };
}

export async function unlinkIntegration(
  sql: Executor,
  workspaceId: number,
  service: IntegrationService,
): Promise<{ service: IntegrationService; unlinked: boolean }> {
  if (!SERVICES.includes(service)) {
    throw Invalid.field("service", "The service must be storefront or billing.");
  }
  const unlinked = await deleteIntegration(sql, workspaceId, service);
  if (service === "storefront") {
    // The catalogue goes with the store: no recommendation names its products again.
    await cancelCatalogueSync(sql, workspaceId);
    await deleteCatalogue(sql, workspaceId);
  }
  return { service, unlinked };
}

/** The stored credential in clear, only for the call that needs it. */
export async function readCredential(appKey: CryptoKey, row: IntegrationRow): Promise<string> {
  return await decryptText(appKey, row.ciphertext);
}
