/**
 * Every check of a two-factor code runs as one login attempt in the shared
 * lockout (per e-mail and client address): a wrong code is counted like a
 * wrong password, a right one clears the count, a fault gives it back.
 */
import { beginLoginAttempt } from "../login_lockout.ts";
import type { LoginDeps } from "../login.ts";

/** `check`'s result; null (a wrong code) is counted, and may start the lock (then 429). */
export async function codeAttempt<T>(
  deps: Pick<LoginDeps, "kv" | "lockout">,
  who: { email: string; ip: string },
  check: () => Promise<T | null>,
): Promise<T | null> {
  const counted = await beginLoginAttempt(deps.kv, deps.lockout, who.email, who.ip);
  let result: T | null;
  try {
    result = await check();
  } catch (err) {
    await counted.abandoned();
    throw err;
  }
  await (result === null ? counted.failed() : counted.succeeded());
  return result;
}
