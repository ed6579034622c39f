/** Currency amounts held as integer minor units ("cents"), as ISO 4217 defines them. */

/** Decimal places of a currency's minor unit (2 for EUR, 0 for JPY, 3 for KWD), from ICU. */
export function minorUnitDigits(currency: string): number {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions()
      .maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** "49.90 EUR": an amount in minor units as agents read it. */
export function formatMinorUnits(minor: number, currency: string): string {
  const digits = minorUnitDigits(currency);
  return `${(minor / 10 ** digits).toFixed(digits)} ${currency.toUpperCase()}`;
}
