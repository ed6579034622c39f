/**
 * v1 timestamps: ISO 8601 in UTC with six fractional digits and `Z`
 * (`2026-11-21T07:06:17.123000Z`), as the spec fixes. Stored times carry
 * millisecond precision (the injectable clock is a JS Date), so the last
 * three digits are zeros.
 */
export function isoMicros(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}
