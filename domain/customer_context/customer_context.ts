/**
 * What the linked storefront and billing services know about the visitor,
 * by the e-mail on the conversation. Each side degrades instead of failing:
 * not linked → `connected: false` (no orders, `data` null); linked but the
 * call fails or times out → `connected: true`, no orders or `data` null, and
 * a warning in the log; never a 500. Answers are cached per conversation and
 * links for CACHE_SECONDS (failures are not, so a recovered service shows at
 * once; a link changed shows at once too).
 */
import type { AppDeps } from "../deps.ts";
import { findConversationByPublicId } from "../../db/conversations.ts";
import { type IntegrationRow, listIntegrations } from "../../db/workspace_integrations.ts";
import { NotFound } from "../errors.ts";
import { CONVERSATION_NOT_FOUND } from "../assist/assist_target.ts";
import { readCredential } from "./integration_credentials.ts";
import { integrationGuard } from "./integration_guard.ts";
import { fetchShopifyOrders, type StorefrontOrder } from "./shopify_orders.ts";
import { type BillingData, fetchStripeBilling } from "./stripe_billing.ts";

export const CACHE_SECONDS = 60;

export interface CustomerContext {
  email: string | null;
  storefront: { connected: boolean; orders: StorefrontOrder[] };
  billing: { connected: boolean; data: BillingData | null };
}

export async function customerContext(
  deps: AppDeps,
  input: { workspaceId: number; conversationId: string },
): Promise<CustomerContext> {
  const [conversation, linked] = await Promise.all([
    findConversationByPublicId(deps.sql, input.workspaceId, input.conversationId),
    listIntegrations(deps.sql, input.workspaceId),
  ]);
  if (!conversation) throw new NotFound(CONVERSATION_NOT_FOUND);
  // The key names the links it was read through: unlinking or replacing a
  // credential shows at once, not after CACHE_SECONDS.
  const cacheKey = customerContextKey(conversation.id, linked);
  const cached = await deps.kv.getCached(cacheKey).catch(() => null);
  if (cached) return JSON.parse(cached) as CustomerContext;

  const email = conversation.visitor_email;
  const storefrontRow = linked.find((r) => r.service === "storefront");
  const billingRow = linked.find((r) => r.service === "billing");
  let failed = false;
  const warn = (service: string, err: unknown) => {
    failed = true;
    deps.log.warn("customer context: a linked service failed", {
      service,
      workspaceId: input.workspaceId,
      err: String(err),
    });
  };
  const [orders, billing] = await Promise.all([
    storefrontRow && email
      ? storefrontOrders(deps, storefrontRow, email).catch((err) => (warn("storefront", err), []))
      : [],
    billingRow && email
      ? billingData(deps, billingRow, email).catch((err) => (warn("billing", err), null))
      : billingRow
      ? { found: false } as const
      : null,
  ]);
  const result: CustomerContext = {
    email,
    storefront: { connected: Boolean(storefrontRow), orders },
    billing: { connected: Boolean(billingRow), data: billing },
  };
  if (!failed) {
    await deps.kv.setCached(cacheKey, JSON.stringify(result), CACHE_SECONDS * 1000)
      .catch(() => {});
  }
  return result;
}

async function storefrontOrders(
  deps: AppDeps,
  row: IntegrationRow,
  email: string,
): Promise<StorefrontOrder[]> {
  const accessToken = await readCredential(deps.appKey, row);
  return await fetchShopifyOrders(
    { domain: row.account!, accessToken },
    email,
    integrationGuard(deps.config, "storefront"),
  );
}

async function billingData(deps: AppDeps, row: IntegrationRow, email: string) {
  const secretKey = await readCredential(deps.appKey, row);
  return await fetchStripeBilling(secretKey, email, integrationGuard(deps.config, "billing"));
}

/** The cache key of a conversation's context read through these links (erasure drops it). */
export function customerContextKey(
  conversationId: number,
  linked: { service: string; updated_at: Date }[],
): string {
  const links = linked.map((r) => `${r.service}@${r.updated_at.getTime()}`).join(",");
  return `customer-context:${conversationId}:${links}`;
}
