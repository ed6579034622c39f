/**
 * An OpenAI-protocol client for one workspace and provider. The key is, in
 * order: the workspace's stored key (decrypted here, only for the call), the
 * server-wide AI_API_KEY, or none at all when AI_BASE_URL names a server that
 * needs no key (a local model server). It never leaves this function's result.
 */
import OpenAI from "openai";
import type { AppDeps } from "../deps.ts";
import { findProviderKey } from "../../db/provider_keys.ts";
import { decryptText } from "../auth/secrets.ts";
import { ProviderUnavailable } from "../errors.ts";
import { type ProviderInfo, providerInfo } from "./providers.ts";

export type ProviderDeps = Pick<AppDeps, "sql" | "appKey"> & {
  config: Pick<AppDeps["config"], "aiBaseUrl" | "aiTimeoutMs" | "aiApiKey">;
};

export interface ProviderClient {
  client: OpenAI;
  info: ProviderInfo;
  timeoutMs: number;
}

/** Sent when AI_BASE_URL is set and no key exists: local servers ignore it, and the SDK needs one. */
const KEYLESS = "none";

export function noKeyMessage(info: ProviderInfo | null, provider: string): string {
  const name = info ? `${info.label}, ${info.code}` : provider;
  return `No API key is configured for the bot's AI provider (${name}). Store one with ` +
    `PUT /api/portal/keys/${provider} or "deno task admin key:set", or set AI_API_KEY ` +
    "(or AI_BASE_URL) on the server.";
}

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
  let apiKey: string | null = null;
  if (stored) {
    try {
      apiKey = await decryptText(deps.appKey, stored.ciphertext);
    } catch {
      // Encrypted under another APP_KEY: as unusable as a missing key.
    }
  }
  apiKey ??= deps.config.aiApiKey ?? (deps.config.aiBaseUrl ? KEYLESS : null);
  if (apiKey === null) return null;
  const client = new OpenAI({
    apiKey,
    baseURL: deps.config.aiBaseUrl ?? info.baseUrl,
    timeout: deps.config.aiTimeoutMs,
    maxRetries: 0, // our own policy in call_provider.ts: one retry, connection errors and 5xx only
  });
  return { client, info, timeoutMs: deps.config.aiTimeoutMs };
}

/** The client, or ProviderUnavailable (502, kind `no_key`) saying how to configure one. */
export async function openProviderClient(
  deps: ProviderDeps,
  workspaceId: number,
  provider: string,
  ciphertext?: string | null,
): Promise<ProviderClient> {
  const found = await findProviderClient(deps, workspaceId, provider, ciphertext);
  if (!found) {
    throw new ProviderUnavailable(noKeyMessage(providerInfo(provider), provider), "no_key");
  }
  return found;
}
