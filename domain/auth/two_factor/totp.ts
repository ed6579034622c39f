/**
 * TOTP (RFC 6238) through the maintained `otpauth` library: SHA-1, six digits,
 * 30-second steps, which every authenticator app reads. A code is accepted
 * one step either side of now (clock drift), and the step it matched is
 * returned so the caller can refuse it the second time.
 */
import * as OTPAuth from "otpauth";

export const TOTP_PERIOD_SECONDS = 30;
const ISSUER = "Parley";

function totpOf(secretBase32: string, label = "") {
  return new OTPAuth.TOTP({
    issuer: ISSUER,
    label,
    secret: OTPAuth.Secret.fromBase32(secretBase32),
    algorithm: "SHA1",
    digits: 6,
    period: TOTP_PERIOD_SECONDS,
  });
}

/** A fresh 160-bit secret, base32 (what a person types into an app). */
export function newTotpSecret(): string {
  return new OTPAuth.Secret({ size: 20 }).base32;
}

/** The otpauth:// URI an authenticator app reads from the QR code. */
export function otpauthUri(secretBase32: string, account: string): string {
  return totpOf(secretBase32, account).toString();
}

/**
 * The time step a code matches (now, or one step either side), or null.
 * Input is forgiving of spaces ("123 456"); anything but six digits fails.
 */
export function matchTotpStep(secretBase32: string, code: string, now: Date): number | null {
  const token = code.replace(/\s+/g, "");
  if (!/^\d{6}$/.test(token)) return null;
  const delta = totpOf(secretBase32).validate({ token, timestamp: now.getTime(), window: 1 });
  if (delta === null) return null;
  return Math.floor(now.getTime() / 1000 / TOTP_PERIOD_SECONDS) + delta;
}
