/**
 * The fetch the customer-context clients (Shopify, Stripe) are given: every
 * URL passes the one address policy (domain/crawl/address_policy.ts), with
 * the integrations' own allowance (CONTEXT_ALLOW_HOSTS), before it is
 * called; redirects are not followed, and each call has a deadline. A
 * configured base URL (tests' fake servers, a proxy) replaces the origin the
 * library chose, keeping its path and query.
 */
import { type AddressPolicy, assertAddressAllowed } from "../crawl/address_policy.ts";

export interface GuardOptions {
  /** The address policy for a URL (crawl/host_allowance.ts). */
  policy: (url: URL) => AddressPolicy;
  timeoutMs: number;
  /** Origin to call instead of the library's (`http://127.0.0.1:8001`), or null. */
  baseUrl?: string | null;
  /**
   * Told of a call that failed before any answer (refused by the policy,
   * past its deadline, unreachable): the official clients wrap these in
   * their own vaguer errors, and a connection test wants the cause.
   */
  onFailure?: (err: unknown) => void;
}

export function guardedFetch(opts: GuardOptions): typeof fetch {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : null;
    let url = new URL(request ? request.url : String(input));
    if (opts.baseUrl) {
      const base = new URL(opts.baseUrl);
      url = new URL(url.pathname + url.search, base);
    }
    const deadline = AbortSignal.timeout(opts.timeoutMs);
    const callerSignal = init?.signal ?? request?.signal;
    const signal = callerSignal ? AbortSignal.any([deadline, callerSignal]) : deadline;
    try {
      await assertAddressAllowed(url, opts.policy(url));
      if (request) return await fetch(new Request(url, request), { redirect: "manual", signal });
      return await fetch(url, { ...init, redirect: "manual", signal });
    } catch (err) {
      opts.onFailure?.(err);
      throw err;
    }
  };
}
