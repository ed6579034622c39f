/**
 * One rate-limit mechanism for every surface: a fixed window counted in Kv,
 * keyed per user (authenticated routes) or per IP (public routes).
 */
import type { Kv } from "../../kv/kv.ts";
import { QuotaExceeded } from "../../domain/errors.ts";

export interface RateLimitSpec {
  /** Names the counter, so two routes never share one by accident. */
  name: string;
  limit: number;
  windowSeconds: number;
  by: "user" | "ip";
}

/** Count one hit; set the headers; throw QuotaExceeded (429) past the limit. */
export async function enforceRateLimit(
  kv: Kv,
  spec: RateLimitSpec,
  subject: string,
  headers: Headers,
): Promise<void> {
  const { count, resetMs } = await kv.hit(
    `rl:${spec.name}:${spec.by}:${subject}`,
    spec.windowSeconds * 1000,
  );
  headers.set("X-RateLimit-Limit", String(spec.limit));
  headers.set("X-RateLimit-Remaining", String(Math.max(0, spec.limit - count)));
  if (count > spec.limit) {
    const retryAfter = Math.max(1, Math.ceil(resetMs / 1000));
    headers.set("Retry-After", String(retryAfter));
    throw new QuotaExceeded("Too many requests. Please slow down.", retryAfter);
  }
}
