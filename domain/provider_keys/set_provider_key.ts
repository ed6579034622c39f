/**
 * Store (or replace) a workspace's key for one provider, AES-GCM encrypted
 * under APP_KEY, with its audit row (which names the provider, never the key)
 * in the same transaction.
 */
import type { Sql } from "../../db/client.ts";
import { upsertProviderKey } from "../../db/provider_keys.ts";
import { encryptText } from "../auth/secrets.ts";
import { providerInfo } from "../ai/providers.ts";
import { type AuditActor, recordAudit } from "../audit/record_audit.ts";
import { Invalid } from "../errors.ts";

export async function setProviderKey(
  sql: Sql,
  appKey: CryptoKey,
  workspaceId: number,
  input: { provider: string; apiKey: string },
  audit: { actor: AuditActor; now: Date },
): Promise<{ provider: string; last_four: string; configured: true }> {
  if (!providerInfo(input.provider)) {
    throw Invalid.field("provider", "The selected provider is invalid.");
  }
  const apiKey = input.apiKey.trim();
  if (apiKey === "") throw Invalid.field("api_key", "The api key field is required.");
  const lastFour = apiKey.slice(-4);
  const ciphertext = await encryptText(appKey, apiKey);
  await sql.begin(async (tx) => {
    await upsertProviderKey(tx, workspaceId, input.provider, ciphertext, lastFour);
    await recordAudit(tx, {
      workspaceId,
      actor: audit.actor,
      action: "provider_key.set",
      target: { type: "provider", id: input.provider },
      now: audit.now,
    });
  });
  return { provider: input.provider, last_four: lastFour, configured: true };
}
