/**
 * An invitation's link: a random secret kept twice, as SHA-256 (what finds the
 * invitation when the link is used) and AES-GCM under APP_KEY (so an owner or
 * administrator can copy or resend it from the Team screen until it is used,
 * revoked or renewed). The secret never leaves in a response to anyone else.
 */
import type { AppDeps } from "../deps.ts";
import { decryptText, encryptText, randomSecret, sha256Hex } from "../auth/secrets.ts";

export const INVITATION_LIFETIME_MS = 7 * 24 * 3600 * 1000;

export interface NewSecret {
  secret: string;
  secretHash: string;
  secretEncrypted: string;
}

export async function newInvitationSecret(appKey: CryptoKey): Promise<NewSecret> {
  const secret = randomSecret(32);
  return {
    secret,
    secretHash: await sha256Hex(secret),
    secretEncrypted: await encryptText(appKey, secret),
  };
}

export function invitationLink(deps: Pick<AppDeps, "config">, secret: string): string {
  return `${deps.config.baseUrl}/dashboard#/invitation/${secret}`;
}

/**
 * The link again, from the stored ciphertext; null for an invitation made
 * before links were kept, or one APP_KEY (rotated since) cannot open.
 */
export async function recoverInvitationLink(
  deps: Pick<AppDeps, "config" | "appKey">,
  secretEncrypted: string | null,
): Promise<string | null> {
  if (!secretEncrypted) return null;
  const secret = await decryptText(deps.appKey, secretEncrypted).catch(() => null);
  return secret ? invitationLink(deps, secret) : null;
}
