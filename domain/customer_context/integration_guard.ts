/**
 * The guard every call to a linked service passes (customer context, the
 * catalogue's products, the dashboard's connection test): the one address
 * policy with the integrations' own allowance (CONTEXT_ALLOW_HOSTS), the
 * CONTEXT_TIMEOUT_MS deadline, and the configured base URL of the service.
 */
import type { Config } from "../../app/config.ts";
import type { IntegrationService } from "../../db/workspace_integrations.ts";
import { hostAllowancePolicy } from "../crawl/host_allowance.ts";
import type { GuardOptions } from "./guarded_fetch.ts";

export function integrationGuard(
  config: Pick<
    Config,
    "integrationAllowHosts" | "customerContextTimeoutMs" | "shopifyBaseUrl" | "stripeBaseUrl"
  >,
  service: IntegrationService,
  extra: Pick<GuardOptions, "onFailure"> = {},
): GuardOptions {
  return {
    policy: (url: URL) =>
      hostAllowancePolicy(config.integrationAllowHosts, url, "CONTEXT_ALLOW_HOSTS"),
    timeoutMs: config.customerContextTimeoutMs,
    baseUrl: service === "storefront" ? config.shopifyBaseUrl : config.stripeBaseUrl,
    ...extra,
  };
}
