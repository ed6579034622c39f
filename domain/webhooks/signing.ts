/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): a secret is
 * `whsec_` and base64 of 32 random bytes; the signature of a message is
 * `v1,` and base64 of HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}`
 * keyed with the secret's bytes.
 */

const PREFIX = "whsec_";

function encodeBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

export function generateSecret(): string {
  return PREFIX + encodeBase64(crypto.getRandomValues(new Uint8Array(32)));
}

const keys = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    const raw = decodeBase64(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret);
    key = crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    if (keys.size > 1000) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

/** `v1,<base64>` for each secret, space-separated (both sign during a rotation's overlap). */
export async function signatureHeader(
  secrets: string[],
  id: string,
  timestampSeconds: number,
  body: string,
): Promise<string> {
  const content = new TextEncoder().encode(`${id}.${timestampSeconds}.${body}`);
  const parts = await Promise.all(secrets.map(async (secret) => {
    const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret), content);
    return `v1,${encodeBase64(new Uint8Array(mac))}`;
  }));
  return parts.join(" ");
}
