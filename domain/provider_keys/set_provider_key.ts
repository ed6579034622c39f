/** Store (or replace) a workspace's key for one provider, AES-GCM encrypted under APP_KEY. */
import type { Executor } from "../../db/client.ts";
import { upsertProviderKey } from "../../db/provider_keys.ts";
import { encryptText } from "../auth/secrets.ts";
import { providerInfo } from "../ai/providers.ts";
import { Invalid } from "../errors.ts";

export async function setProviderKey(
  sql: Executor,
  appKey: CryptoKey,
  workspaceId: number,
  input: { provider: string; apiKey: string },
): Promise<{ provider: string; last_four: string; configured: true }> {
  if (!providerInfo(input.provider)) {
    throw Invalid.field("provider", "The selected provider is invalid.");
  }
  const apiKey = input.apiKey.trim();
  if (apiKey === "") throw Invalid.field("api_key", "The api key field is required.");
  const lastFour = apiKey.slice(-4);
  await upsertProviderKey(
    sql,
    workspaceId,
    input.provider,
    await encryptText(appKey, apiKey),
    lastFour,
  );
  return { provider: input.provider, last_four: lastFour, configured: true };
}
