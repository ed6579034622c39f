/**
 * Recovery codes: ten single-use codes shown once at enrolment, stored as
 * SHA-256 (they carry 50 bits of randomness, so a fast hash is enough), typed
 * back in any case with or without the dash.
 */
import { sha256Hex } from "../secrets.ts";

export const RECOVERY_CODE_COUNT = 10;
// Crockford-like alphabet: no 0/O, 1/I/L to misread from a printout.
const ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";

/** `XXXXX-XXXXX`, ten characters from a 31-letter alphabet (about 49.5 bits). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const bytes = crypto.getRandomValues(new Uint32Array(10));
    const chars = Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join("");
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** The stored form of a code as a person may type it back. */
export function hashRecoveryCode(typed: string): Promise<string> {
  return sha256Hex(`recovery:${typed.replace(/[\s-]+/g, "").toUpperCase()}`);
}

/** Whether typed input has the shape of a recovery code (not a six-digit TOTP code). */
export function looksLikeRecoveryCode(typed: string): boolean {
  return /^[A-Za-z0-9]{5}-?[A-Za-z0-9]{5}$/.test(typed.trim());
}
