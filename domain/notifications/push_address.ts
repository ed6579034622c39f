/**
 * Push endpoints are URLs the server POSTs to, so they pass the crawler's one
 * address policy (no private, loopback, link-local or metadata addresses),
 * with their own exemption list: PUSH_ALLOW_HOSTS, entries `host` (any port)
 * or `host:port`. CRAWL_ALLOW_PRIVATE does not apply to push.
 */
import type { NotificationConfig } from "../../app/config.ts";
import {
  type AddressPolicy,
  assertAddressAllowed,
  type Resolver,
} from "../crawl/address_policy.ts";
import { hostAllowancePolicy } from "../crawl/host_allowance.ts";

export function pushAddressPolicy(config: NotificationConfig, url: URL): AddressPolicy {
  return hostAllowancePolicy(config.pushAllowHosts, url, "PUSH_ALLOW_HOSTS");
}

/** Throws AddressRefused for a forbidden endpoint, a plain Error when DNS fails. */
export async function assertPushEndpointAllowed(
  config: NotificationConfig,
  url: URL,
  resolve?: Resolver,
): Promise<void> {
  await assertAddressAllowed(url, pushAddressPolicy(config, url), resolve);
}
