/**
 * When the next attempt is due: base, then three times longer each time
 * (5 s, 15 s, 45 s, ... by default), capped at 4320 bases (6 h), with ±20 %
 * jitter so a receiver coming back is not hit by every delivery at once. A
 * Retry-After longer than that is honoured. Null once the next attempt would
 * fall outside the retry window (a day from the first attempt): give up.
 */
import type { WebhookConfig } from "../../app/config.ts";

export function nextAttemptAt(
  config: WebhookConfig,
  attempt: number,
  windowStartedAt: Date,
  now: Date,
  retryAfterSeconds: number | null,
  random: () => number = Math.random,
): Date | null {
  const base = config.retryBaseMs;
  const backoff = Math.min(base * 3 ** Math.max(0, attempt - 1), base * 4320);
  const jittered = backoff * (0.8 + 0.4 * random());
  const delay = Math.max(jittered, (retryAfterSeconds ?? 0) * 1000);
  const at = new Date(now.getTime() + delay);
  const windowEnd = windowStartedAt.getTime() + config.retryWindowSeconds * 1000;
  return at.getTime() > windowEnd ? null : at;
}
