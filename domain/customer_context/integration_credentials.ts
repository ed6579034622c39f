/**
 * Linking a storefront (Shopify: shop domain and Admin API access token) or
 * billing (Stripe: secret key) to a workspace. The credential is encrypted
 * under APP_KEY like provider keys and never shown again: only its last four
 * characters.
 */
import type { Executor } from "../../db/client.ts";
import {
  deleteIntegration,
  findIntegration,
  type IntegrationRow,
  type IntegrationService,
  upsertIntegration,
} from "../../db/workspace_integrations.ts";
import { decryptText, encryptText } from "../auth/secrets.ts";
import { Invalid } from "../errors.ts";
import { deleteCatalogue, setCatalogueSync } from "../../db/catalogue.ts";
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

/** A link's values checked and normalised (the shop's domain lower-cased, no scheme). */
export interface ValidLink {
  service: IntegrationService;
  account: string | null;
  credential: string;
}

export function validateIntegrationLink(link: IntegrationLink): ValidLink {
  if (!SERVICES.includes(link.service)) {
    throw Invalid.field("service", "The service must be storefront or billing.");
  }
  const credential = link.credential.trim();
  if (!credential || credential.length > 300) {
    throw Invalid.field("credential", "The credential must be 1 to 300 characters.");
  }
  if (/\s/.test(credential)) {
    throw Invalid.field("credential", "The credential cannot contain spaces or line breaks.");
  }
  if (link.service === "billing" && /^pk_/.test(credential)) {
    // The commonest mistake: the key a web page may see, which reads nothing.
    throw Invalid.field(
      "credential",
      "This is a publishable key (pk_…). Customer context needs a secret key (sk_…) or a restricted key (rk_…).",
    );
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
  return { service: link.service, account, credential };
}

export async function linkIntegration(
  sql: Executor,
  appKey: CryptoKey,
  workspaceId: number,
  link: IntegrationLink,
  opts: { linkedBy?: number | null } = {},
): Promise<{ service: IntegrationService; account: string | null; last_four: string }> {
  const { service, account, credential } = validateIntegrationLink(link);
  const lastFour = credential.slice(-4);
  const before = service === "storefront"
    ? await findIntegration(sql, workspaceId, service, { forUpdate: true })
    : null;
  await upsertIntegration(sql, workspaceId, {
    service,
    account,
    ciphertext: await encryptText(appKey, credential),
    lastFour,
    linkedBy: opts.linkedBy ?? null,
  });
  if (service === "storefront") {
    // Another store's products must never be recommended for this one.
    if (before && before.account !== account) await deleteCatalogue(sql, workspaceId);
    // A linked store's catalogue is synced at once, then periodically (domain/catalogue).
    await enqueueCatalogueSync(sql, workspaceId);
    await setCatalogueSync(sql, workspaceId, { status: "pending" });
  }
  return { service, account, last_four: lastFour };
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
