/**
 * Hashing and encryption primitives: token secrets as SHA-256 (fast lookups,
 * useless if the table leaks), provider keys as AES-GCM under APP_KEY.
 */

import { createHash } from "node:crypto";

const encoder = new TextEncoder();

/**
 * Every authenticated request hashes its token. node:crypto hashes on the
 * calling thread (8 µs here); WebCrypto's digest hops to a worker thread and
 * back (95 µs idle, more under load). Still a promise, for its callers.
 */
export function sha256Hex(text: string): Promise<string> {
  return Promise.resolve(createHash("sha256").update(text).digest("hex"));
}

/** URL-safe random string of `bytes` bytes of entropy. */
export function randomSecret(bytes = 30): string {
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...raw)).replace(/\+/g, "-").replace(/\//g, "_").replace(
    /=+$/,
    "",
  );
}

/** Constant-time comparison of two equal-length strings. */
export function safeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

export function importAppKey(raw: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", raw as BufferSource, "AES-GCM", false, [
    "encrypt",
    "decrypt",
  ]);
}

/** base64(iv || ciphertext) */
export async function encryptText(key: CryptoKey, plain: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, encoder.encode(plain)),
  );
  const out = new Uint8Array(iv.length + ct.length);
  out.set(iv);
  out.set(ct, iv.length);
  return btoa(String.fromCharCode(...out));
}

export async function decryptText(key: CryptoKey, stored: string): Promise<string> {
  const raw = Uint8Array.from(atob(stored), (c) => c.charCodeAt(0));
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: raw.slice(0, 12) },
    key,
    raw.slice(12),
  );
  return new TextDecoder().decode(plain);
}
