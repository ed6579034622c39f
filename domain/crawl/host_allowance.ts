/**
 * An allowance by host name for a caller of the one address policy that is
 * not the crawler: push endpoints (PUSH_ALLOW_HOSTS) and the customer-context
 * integrations (CONTEXT_ALLOW_HOSTS) each have their own list, so
 * loosening one (CRAWL_ALLOW_PRIVATE for an intranet crawl) never loosens the
 * others. Entries are `host` (any port) or `host:port`, lower-case.
 */
import type { AddressPolicy } from "./address_policy.ts";

/** `setting`: the variable's name, which a refusal names (address_policy.ts allowHint). */
export function hostAllowancePolicy(
  allowHosts: string[],
  url: URL,
  setting?: string,
): AddressPolicy {
  const host = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === "http:" ? "80" : "443");
  const allowed = allowHosts.includes(host) || allowHosts.includes(`${host}:${port}`);
  return { allowPrivate: allowed, allowHosts: [], allowSetting: setting };
}
