/**
 * The one login lockout shared by the portal, agent and web logins (SPEC
 * authentication rule 7): attempts are counted per e-mail and client IP; at
 * the threshold the pair is locked for a fixed time, during which every
 * attempt (even with the right password) gets 429 with Retry-After.
 * A success clears the count. Thresholds: docs/portal-api.md.
 *
 * Checking and counting are one atomic Kv step (`claim`), taken before the
 * password is evaluated, and attempts still in flight count against the
 * threshold: a burst of concurrent attempts, on one instance or several,
 * never gets more than `maxAttempts` passwords evaluated.
 */
import type { Kv } from "../../kv/kv.ts";
import { QuotaExceeded } from "../errors.ts";
import { sha256Hex } from "./secrets.ts";

export interface LockoutPolicy {
  /** Failures within one lockout period that trigger the lock. */
  maxAttempts: number;
  /** Both the counting window and the length of the lock. */
  lockoutSeconds: number;
}

export const LOCKOUT_MESSAGE = "Too many login attempts. Please try again later.";

/** One admitted attempt; exactly one of its methods must be called when it is decided. */
export interface LoginAttempt {
  /** Wrong credentials: the attempt stays counted (and may start the lock). */
  failed(): Promise<void>;
  /** Right credentials: the count is cleared. */
  succeeded(): Promise<void>;
  /** Nothing was decided (a fault): the attempt is given back uncounted. */
  abandoned(): Promise<void>;
}

// The e-mail is hashed so Redis never holds addresses in its key names.
async function lockoutKey(email: string, ip: string): Promise<string> {
  return `login:attempts:${await sha256Hex(`${email.trim().toLowerCase()}|${ip}`)}`;
}

/**
 * Admit one attempt for the e-mail and IP pair, or throw QuotaExceeded (429)
 * with the seconds left while the pair is locked or its attempts are all in use.
 */
export async function beginLoginAttempt(
  kv: Kv,
  policy: LockoutPolicy,
  email: string,
  ip: string,
): Promise<LoginAttempt> {
  const key = await lockoutKey(email, ip);
  const windowMs = policy.lockoutSeconds * 1000;
  const claim = await kv.claim(key, policy.maxAttempts, windowMs);
  if (!claim.granted) {
    throw new QuotaExceeded(LOCKOUT_MESSAGE, Math.max(1, Math.ceil(claim.resetMs / 1000)));
  }
  let settled = false;
  const settle = async (outcome: "spent" | "cleared" | "refunded") => {
    if (settled) return;
    settled = true;
    await kv.settle(key, outcome, policy.maxAttempts, windowMs);
  };
  return {
    failed: () => settle("spent"),
    succeeded: () => settle("cleared"),
    abandoned: () => settle("refunded"),
  };
}
