/**
 * One rate-limit mechanism for every surface: a fixed window counted in Kv,
 * keyed per user (authenticated routes) or per IP (public routes).
 */
import { type Kv, KvUnavailable } from "../../kv/kv.ts";
import { QuotaExceeded } from "../../domain/errors.ts";

export interface RateLimitSpec {
  /** Names the counter, so two routes never share one by accident. */
  name: string;
  limit: number;
  windowSeconds: number;
  by: "user" | "ip";
}

/**
 * Count one hit; set the headers; throw QuotaExceeded (429) past the limit.
 * While Redis cannot be reached the request is let through uncounted, as
 * rate limiters commonly fail open: limits protect the service, and refusing
 * every request would be the outage they guard against (/readyz reports it).
 * The login lockout is a security budget and fails closed (503) instead.
 */
export async function enforceRateLimit(
  kv: Kv,
  spec: RateLimitSpec,
  subject: string,
  headers: Headers,
): Promise<void> {
  let counted;
  try {
    counted = await kv.hit(`rl:${spec.name}:${spec.by}:${subject}`, spec.windowSeconds * 1000);
  } catch (err) {
    if (err instanceof KvUnavailable) return;
    throw err;
  }
  const { count, resetMs } = counted;
  headers.set("X-RateLimit-Limit", String(spec.limit));
  headers.set("X-RateLimit-Remaining", String(Math.max(0, spec.limit - count)));
  if (count > spec.limit) {
    const retryAfter = Math.max(1, Math.ceil(resetMs / 1000));
    headers.set("Retry-After", String(retryAfter));
    throw new QuotaExceeded("Too many requests. Please slow down.", retryAfter);
  }
}
