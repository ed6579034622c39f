/**
 * POST /api/agent/push/subscriptions: register (or, for a known endpoint,
 * update) a device's push subscription, tied to the agent and the token that
 * registered it. 503 where push has no VAPID keys; 422 for an endpoint that
 * is not https or points at a private, loopback or metadata address.
 */
import type { AppDeps } from "../deps.ts";
import { upsertPushSubscription } from "../../db/push_subscriptions.ts";
import type { Auth } from "../auth/tokens.ts";
import { AddressRefused, literalAddressRefusal } from "../crawl/address_policy.ts";
import { Invalid, NotConfigured } from "../errors.ts";
import { assertPushEndpointAllowed, pushAddressPolicy } from "./push_address.ts";
import { sealPushKeys } from "./push_keys.ts";

export interface SubscriptionInput {
  endpoint: string;
  p256dh: string;
  auth: string;
  deviceName: string | null;
}

export interface SubscriptionView {
  id: number;
  endpoint: string;
  device_name: string | null;
  created: boolean;
  created_at: string;
  updated_at: string;
}

export const PUSH_NOT_CONFIGURED =
  "Push notifications are not configured on this server (no VAPID keys). Ask the administrator to set VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY.";

export async function registerPushSubscription(
  deps: AppDeps,
  auth: Auth,
  input: SubscriptionInput,
): Promise<SubscriptionView> {
  if (!deps.vapid) throw new NotConfigured(PUSH_NOT_CONFIGURED);
  const url = new URL(input.endpoint);
  if (url.protocol !== "https:") {
    throw Invalid.field("endpoint", "The endpoint must be an https URL.");
  }
  // What no DNS answer can make acceptable, said precisely; then what DNS says.
  const refusal = literalAddressRefusal(
    url.href,
    pushAddressPolicy(deps.config.notifications, url),
  );
  if (refusal) throw Invalid.field("endpoint", `The endpoint ${refusal}.`);
  try {
    await assertPushEndpointAllowed(deps.config.notifications, url);
  } catch (err) {
    const reason = err instanceof AddressRefused
      ? "The endpoint points at a private, loopback or link-local address."
      : "The endpoint's host name does not resolve.";
    throw Invalid.field("endpoint", reason);
  }
  const row = await upsertPushSubscription(deps.sql, {
    workspaceId: auth.workspace.id,
    userId: auth.user.id,
    tokenId: auth.tokenId,
    endpoint: input.endpoint,
    keysCiphertext: await sealPushKeys(deps.appKey, input),
    deviceName: input.deviceName ?? auth.deviceName,
  });
  return {
    id: row.id,
    endpoint: row.endpoint,
    device_name: row.device_name,
    created: row.created,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
