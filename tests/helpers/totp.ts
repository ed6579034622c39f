/**
 * RFC 6238 TOTP written out here (HMAC-SHA1, six digits, 30-second steps), so
 * the tests check the server's codes against the RFC and not against the
 * library the server uses.
 */
import { createHmac } from "node:crypto";

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

function base32Decode(text: string): Uint8Array {
  const clean = text.replace(/[\s=]/g, "").toUpperCase();
  const out: number[] = [];
  let bits = 0, value = 0;
  for (const ch of clean) {
    const i = BASE32.indexOf(ch);
    if (i < 0) throw new Error(`not base32: ${ch}`);
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return new Uint8Array(out);
}

/** The code of `secret` for the step `offset` steps away from the one of `at`. */
export function totpCode(secret: string, offset = 0, at = Date.now()): string {
  const step = Math.floor(at / 30_000) + offset;
  const counter = new Uint8Array(8);
  new DataView(counter.buffer).setBigUint64(0, BigInt(step));
  const mac = createHmac("sha1", base32Decode(secret)).update(counter).digest();
  const o = mac[mac.length - 1]! & 0x0f;
  const n = ((mac[o]! & 0x7f) << 24) | (mac[o + 1]! << 16) | (mac[o + 2]! << 8) | mac[o + 3]!;
  return String(n % 1_000_000).padStart(6, "0");
}

/** Wait out the last second of a step, so a code computed now is checked in the same step. */
export async function awayFromStepEdge(): Promise<void> {
  const into = Date.now() % 30_000;
  if (into > 28_500) await new Promise((r) => setTimeout(r, 30_000 - into + 100));
}

/** The secret in an otpauth:// URI. */
export function secretOfUri(uri: string): string {
  return new URL(uri).searchParams.get("secret") ?? "";
}
