/**
 * A push subscription's keys (`p256dh`, `auth`) are stored encrypted under
 * APP_KEY, like provider keys and identity secrets: whoever holds them can
 * read every alert the server sends to that device, so a leaked table or
 * backup must not give them away. Sealed once at registration, opened just
 * before each delivery.
 */
import type { Executor } from "../../db/client.ts";
import { listLegacyPushKeys, replaceLegacyPushKeys } from "../../db/push_subscriptions.ts";
import { decryptText, encryptText } from "../auth/secrets.ts";

export interface PushKeys {
  p256dh: string;
  auth: string;
}

export async function sealPushKeys(appKey: CryptoKey, keys: PushKeys): Promise<string> {
  return await encryptText(appKey, JSON.stringify({ p256dh: keys.p256dh, auth: keys.auth }));
}

export async function openPushKeys(appKey: CryptoKey, ciphertext: string): Promise<PushKeys> {
  const { p256dh, auth } = JSON.parse(await decryptText(appKey, ciphertext));
  return { p256dh, auth };
}

/**
 * Encrypt the keys stored in plain text before this was the rule (migration
 * 0107 moved them aside); run once at start. Returns how many were encrypted.
 */
export async function encryptLegacyPushKeys(
  deps: { sql: Executor; appKey: CryptoKey },
): Promise<number> {
  const rows = await listLegacyPushKeys(deps.sql);
  for (const row of rows) {
    await replaceLegacyPushKeys(deps.sql, row.id, row.p256dh, await sealPushKeys(deps.appKey, row));
  }
  return rows.length;
}
