/**
 * Identity tokens: an HS256 JWT signed by the customer's own server with the
 * workspace's identity secret. Only a verified token's name, e-mail and phone
 * are trusted; anything wrong with it is a 422 on the `identity` field.
 */
import { Invalid } from "../errors.ts";

export interface VerifiedIdentity {
  /** The customer's own user id. */
  sub: string;
  name?: string;
  email?: string;
  phone?: string;
}

/** Allowed difference between the customer's clock and ours, seconds. */
export const CLOCK_SKEW_SECONDS = 60;
/** Longest accepted lifetime ahead of now: identity tokens are meant to be short-lived. */
export const MAX_LIFETIME_SECONDS = 24 * 3600;

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function refuse(reason: string): Invalid {
  return new Invalid(reason, { identity: [reason] });
}

function base64UrlDecode(part: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9_-]*$/.test(part)) throw refuse("The identity token is malformed.");
  const b64 = part.replace(/-/g, "+").replace(/_/g, "/").padEnd(
    Math.ceil(part.length / 4) * 4,
    "=",
  );
  try {
    return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  } catch {
    throw refuse("The identity token is malformed.");
  }
}

function jsonPart(part: string): Record<string, unknown> {
  try {
    const value = JSON.parse(new TextDecoder().decode(base64UrlDecode(part)));
    if (value && typeof value === "object" && !Array.isArray(value)) return value;
  } catch { /* reported below */ }
  throw refuse("The identity token is malformed.");
}

function optionalString(claims: Record<string, unknown>, name: string, max: number) {
  const v = claims[name];
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string" || v.length > max) {
    throw refuse(
      `The identity token's ${name} claim must be a string of at most ${max} characters.`,
    );
  }
  return v.trim() || undefined;
}

/** Verify `token` against `secret` at time `now`; throws Invalid on `identity`. */
export async function verifyIdentity(
  token: string,
  secret: string | null,
  now: Date,
): Promise<VerifiedIdentity> {
  if (!secret) throw refuse("Identity verification is not configured for this workspace.");
  const parts = token.trim().split(".");
  if (parts.length !== 3) throw refuse("The identity token is malformed.");
  const [h, p, s] = parts as [string, string, string];
  const header = jsonPart(h);
  if (header.alg !== "HS256") throw refuse("The identity token must be signed with HS256.");
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["verify"],
  );
  const valid = await crypto.subtle.verify(
    "HMAC",
    key,
    base64UrlDecode(s),
    new TextEncoder().encode(`${h}.${p}`),
  );
  if (!valid) throw refuse("The identity token signature is invalid.");
  const claims = jsonPart(p);
  const nowSec = Math.floor(now.getTime() / 1000);
  if (typeof claims.sub !== "string" || !claims.sub.trim() || claims.sub.length > 255) {
    throw refuse(
      "The identity token must carry a sub claim (your user id, at most 255 characters).",
    );
  }
  if (typeof claims.exp !== "number" || !Number.isFinite(claims.exp)) {
    throw refuse("The identity token must carry an exp claim.");
  }
  if (claims.exp + CLOCK_SKEW_SECONDS <= nowSec) throw refuse("The identity token has expired.");
  if (claims.exp - nowSec > MAX_LIFETIME_SECONDS + CLOCK_SKEW_SECONDS) {
    throw refuse("The identity token expires too far ahead (at most 24 hours).");
  }
  if (typeof claims.nbf === "number" && claims.nbf - CLOCK_SKEW_SECONDS > nowSec) {
    throw refuse("The identity token is not valid yet.");
  }
  const email = optionalString(claims, "email", 255);
  if (email && !EMAIL_RE.test(email)) {
    throw refuse("The identity token's email claim is not a valid e-mail address.");
  }
  return {
    sub: claims.sub.trim(),
    name: optionalString(claims, "name", 255),
    email,
    phone: optionalString(claims, "phone", 50),
  };
}
