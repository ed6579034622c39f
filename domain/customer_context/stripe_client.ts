/**
 * The official `stripe` client as customer context and the connection test
 * use it: its fetch client given our guarded fetch (every call through the
 * one address policy, with a deadline), no retries, no telemetry, and a
 * configured base URL (STRIPE_BASE_URL: tests' fake, a proxy) in place of
 * api.stripe.com.
 */
import Stripe from "stripe";
import { guardedFetch, type GuardOptions } from "./guarded_fetch.ts";

export function stripeClient(secretKey: string, guard: GuardOptions): Stripe {
  const base = guard.baseUrl ? new URL(guard.baseUrl) : null;
  return new Stripe(secretKey, {
    httpClient: Stripe.createFetchHttpClient(guardedFetch({ ...guard, baseUrl: null })),
    maxNetworkRetries: 0,
    // No request metrics sent to Stripe with later calls.
    telemetry: false,
    timeout: guard.timeoutMs,
    ...(base
      ? {
        host: base.hostname,
        port: base.port || (base.protocol === "https:" ? 443 : 80),
        protocol: base.protocol === "https:" ? "https" : "http",
      }
      : {}),
  });
}
