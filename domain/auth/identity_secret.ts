/**
 * A workspace's identity secret (the HS256 key its own server signs visitor
 * identity tokens with) is stored encrypted under APP_KEY, like provider keys:
 * a leaked table or backup does not let anyone forge a verified visitor.
 */
import type { Executor } from "../../db/client.ts";
import {
  listLegacyIdentitySecrets,
  replaceLegacyIdentitySecret,
  type WorkspaceRow,
} from "../../db/workspaces.ts";
import { decryptText, encryptText } from "./secrets.ts";

/** The plain secret of `workspace`, or null when it has none. */
export async function openIdentitySecret(
  appKey: CryptoKey,
  workspace: Pick<WorkspaceRow, "identity_secret_ciphertext"> | null,
): Promise<string | null> {
  const stored = workspace?.identity_secret_ciphertext ?? null;
  return stored === null ? null : await decryptText(appKey, stored);
}

/**
 * The ciphertext to store for `plain`: the current one when it already holds
 * the same secret (so re-applying a seed changes no row), else a new one.
 */
export async function sealIdentitySecret(
  appKey: CryptoKey,
  plain: string | null,
  current: string | null,
): Promise<string | null> {
  if (plain === null) return null;
  if (current !== null && await decryptText(appKey, current).catch(() => null) === plain) {
    return current;
  }
  return await encryptText(appKey, plain);
}

/**
 * Encrypt the secrets stored in plain text before this was the rule (migration
 * 0070 moved them aside); run once at start. Returns how many were encrypted.
 */
export async function encryptLegacyIdentitySecrets(
  deps: { sql: Executor; appKey: CryptoKey },
): Promise<number> {
  const rows = await listLegacyIdentitySecrets(deps.sql);
  for (const row of rows) {
    await replaceLegacyIdentitySecret(
      deps.sql,
      row.id,
      row.secret,
      await encryptText(deps.appKey, row.secret),
    );
  }
  return rows.length;
}
