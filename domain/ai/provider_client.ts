/**
 * An OpenAI-protocol client for one workspace and provider. The stored key is
 * decrypted here, only for the call, and never leaves this function's result.
 */
import OpenAI from "openai";
import type { AppDeps } from "../../app/deps.ts";
import { findProviderKey } from "../../db/provider_keys.ts";
import { decryptText } from "../auth/secrets.ts";
import { ProviderUnavailable } from "../errors.ts";
import { type ProviderInfo, providerInfo } from "./providers.ts";

export type ProviderDeps = Pick<AppDeps, "sql" | "appKey"> & {
  config: Pick<AppDeps["config"], "aiBaseUrl" | "aiTimeoutMs">;
};

export interface ProviderClient {
  client: OpenAI;
  info: ProviderInfo;
  timeoutMs: number;
}

export const NO_KEY_MESSAGE =
  "No API key is configured for the bot's AI provider. Check the provider key configured for the workspace.";

/**
 * Null when no key is stored (callers that can degrade, like training, decide).
 * `ciphertext`, when the caller already read the stored key with the bot (null:
 * none stored), saves the lookup.
 */
export async function findProviderClient(
  deps: ProviderDeps,
  workspaceId: number,
  provider: string,
  ciphertext?: string | null,
): Promise<ProviderClient | null> {
  const info = providerInfo(provider);
  if (!info) return null;
  const stored = ciphertext === undefined
    ? await findProviderKey(deps.sql, workspaceId, provider)
    : ciphertext === null
    ? null
    : { ciphertext };
  if (!stored) return null;
  let apiKey: string;
  try {
    apiKey = await decryptText(deps.appKey, stored.ciphertext);
  } catch {
    // Encrypted under another APP_KEY: as unusable as a missing key.
    return null;
  }
  const client = new OpenAI({
    apiKey,
    baseURL: deps.config.aiBaseUrl ?? info.baseUrl,
    timeout: deps.config.aiTimeoutMs,
    maxRetries: 0, // our own policy in call_provider.ts: one retry, connection errors and 5xx only
  });
  return { client, info, timeoutMs: deps.config.aiTimeoutMs };
}

/** The client, or ProviderUnavailable (502) telling the caller to check the key. */
export async function openProviderClient(
  deps: ProviderDeps,
  workspaceId: number,
  provider: string,
  ciphertext?: string | null,
): Promise<ProviderClient> {
  const found = await findProviderClient(deps, workspaceId, provider, ciphertext);
  if (!found) throw new ProviderUnavailable(NO_KEY_MESSAGE);
  return found;
}
