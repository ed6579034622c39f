/**
 * The one login lockout shared by the portal, agent and web logins (SPEC
 * authentication rule 7): failures are counted per e-mail and client IP; at
 * the threshold the pair is locked for a fixed time, during which every
 * attempt (even with the right password) gets 429 with Retry-After.
 * A success clears the counter. Thresholds: docs/portal-api.md.
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

// The e-mail is hashed so Redis never holds addresses in its key names.
async function keys(email: string, ip: string) {
  const id = await sha256Hex(`${email.trim().toLowerCase()}|${ip}`);
  return { failures: `login:fail:${id}`, lock: `login:lock:${id}` };
}

/** Throws QuotaExceeded (429) with the seconds left while the pair is locked. */
export async function assertNotLockedOut(kv: Kv, email: string, ip: string): Promise<void> {
  const { lock } = await keys(email, ip);
  const state = await kv.peek(lock);
  if (state.count > 0 && state.resetMs > 0) {
    throw new QuotaExceeded(LOCKOUT_MESSAGE, Math.max(1, Math.ceil(state.resetMs / 1000)));
  }
}

/** Count a failure; returns true when this failure started the lock. */
export async function recordLoginFailure(
  kv: Kv,
  policy: LockoutPolicy,
  email: string,
  ip: string,
): Promise<boolean> {
  const k = await keys(email, ip);
  const { count } = await kv.hit(k.failures, policy.lockoutSeconds * 1000);
  if (count < policy.maxAttempts) return false;
  await kv.hit(k.lock, policy.lockoutSeconds * 1000);
  await kv.del(k.failures);
  return true;
}

export async function clearLoginFailures(kv: Kv, email: string, ip: string): Promise<void> {
  const k = await keys(email, ip);
  await kv.del(k.failures);
}
