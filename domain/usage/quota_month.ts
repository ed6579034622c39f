/**
 * Quota months are calendar months in UTC: one rule for every workspace, so a
 * counter row never straddles two billing periods.
 */

/** `YYYY-MM-01` of the month containing `now` (UTC), the counter's key. */
export function quotaMonth(now: Date): string {
  return `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, "0")}-01`;
}

/** Seconds from `now` until the next month's counter starts (for Retry-After). */
export function secondsUntilNextMonth(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}
