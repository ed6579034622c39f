/**
 * Password reset links: `<BASE_URL>/<app>#/reset/<secret>`, the secret stored
 * only as SHA-256, valid one hour, spent by its first use. A new link
 * replaces the user's open ones.
 */
import type { Executor } from "../../db/client.ts";
import { insertPasswordReset, spendOpenResetsOfUser } from "../../db/password_resets.ts";
import { randomSecret, sha256Hex } from "../auth/secrets.ts";
import type { Role } from "../auth/permissions.ts";

export const RESET_LIFETIME_MS = 60 * 60 * 1000;

/** Which sign-in page a link opens: agents work in the inbox, the others in the dashboard. */
export type ResetApp = "dashboard" | "inbox";

export function appForRole(role: Role): ResetApp {
  return role === "agent" ? "inbox" : "dashboard";
}

export function resetLink(baseUrl: string, app: ResetApp, secret: string): string {
  return `${baseUrl}/${app}#/reset/${secret}`;
}

/** A fresh secret and its hash: the same work whether or not an account will hold it. */
export async function newResetSecret(): Promise<{ secret: string; hash: string }> {
  const secret = randomSecret(32);
  return { secret, hash: await sha256Hex(secret) };
}

export async function storeResetLink(
  tx: Executor,
  r: { workspaceId: number; userId: number; hash: string; now: Date },
): Promise<Date> {
  const expiresAt = new Date(r.now.getTime() + RESET_LIFETIME_MS);
  await spendOpenResetsOfUser(tx, r.userId, r.now);
  await insertPasswordReset(tx, {
    workspaceId: r.workspaceId,
    userId: r.userId,
    secretHash: r.hash,
    expiresAt,
    now: r.now,
  });
  return expiresAt;
}
