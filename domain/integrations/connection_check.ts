/**
 * What a "test connection" reports: whether the service accepted the
 * credential, one sentence saying what it found or why it failed, what the
 * service said about itself, and warnings for what works but will limit a
 * feature (a missing scope). Never the credential.
 */
import { AddressRefused } from "../crawl/address_policy.ts";

export interface ConnectionCheck {
  ok: boolean;
  message: string;
  found: {
    /** The store's or the Stripe account's display name. */
    name: string | null;
    /** The shop's myshopify.com domain, or the Stripe account's id. */
    account: string | null;
    /** Stripe: which mode the key opens; null for a store. */
    mode: "live" | "test" | null;
    /** The store's currency, or the Stripe account's default one. */
    currency: string | null;
  } | null;
  warnings: string[];
}

export function failed(message: string): ConnectionCheck {
  return { ok: false, message, found: null, warnings: [] };
}

/**
 * Why a call got no answer at all: the address policy refused it, its
 * deadline passed, or the host could not be reached (DNS, connection). The
 * clients hide this behind their own wording; guarded_fetch tells us.
 */
export function noAnswer(label: string, err: unknown, timeoutMs: number): string {
  if (err instanceof AddressRefused) {
    return `${label} is not reachable from this server: ${err.message}`;
  }
  if (err instanceof DOMException && (err.name === "TimeoutError" || err.name === "AbortError")) {
    return `${label} did not answer within ${formatSeconds(timeoutMs)} (CONTEXT_TIMEOUT_MS).`;
  }
  const reason = err instanceof Error ? err.message : String(err);
  return `Could not reach ${label}: ${reason.slice(0, 240)}`;
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}
