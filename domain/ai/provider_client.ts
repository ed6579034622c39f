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
import { nameProvider } from "../observability/provider_calls.ts";
import { providerFetch } from "./provider_fetch.ts";

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

/** Clients kept per configuration and APP_KEY; the least recently used leave first. */
const MAX_CLIENTS = 256;
const clients = new WeakMap<object, WeakMap<CryptoKey, Map<string, ProviderClient>>>();

/**
 * The clients opened under this configuration and APP_KEY, by provider and
 * stored ciphertext. Decrypting the key (WebCrypto hops to a worker thread and
 * back) and building the SDK client cost about a millisecond under load on
 * every reply; a ciphertext never changes meaning, and a stored key that
 * changes is a new ciphertext, so a kept client is the one a fresh lookup
 * would build.
 */
function openedClients(deps: ProviderDeps): Map<string, ProviderClient> {
  let byKey = clients.get(deps.config);
  if (!byKey) clients.set(deps.config, byKey = new WeakMap());
  let opened = byKey.get(deps.appKey);
  if (!opened) byKey.set(deps.appKey, opened = new Map());
  return opened;
}

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
  const opened = openedClients(deps);
  const cacheKey = `${provider}\u0000${stored?.ciphertext ?? ""}`;
  const kept = opened.get(cacheKey);
  if (kept) {
    opened.delete(cacheKey); // Map order is recency
    opened.set(cacheKey, kept);
    return kept;
  }
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
  const found = clientWithKey(deps, info, apiKey);
  opened.set(cacheKey, found);
  if (opened.size > MAX_CLIENTS) opened.delete(opened.keys().next().value!);
  return found;
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

/**
 * A client with this very key, not kept (a key being tried before it is
 * saved, domain/provider_keys/test_provider_key.ts): it goes where the
 * provider's calls go (AI_BASE_URL when set).
 */
export function clientWithKey(
  deps: Pick<ProviderDeps, "config">,
  info: ProviderInfo,
  apiKey: string,
): ProviderClient {
  const client = new OpenAI({
    apiKey,
    baseURL: deps.config.aiBaseUrl ?? info.baseUrl,
    timeout: deps.config.aiTimeoutMs,
    maxRetries: 0, // our own policy in call_provider.ts: one retry, connection errors and 5xx only
    fetch: providerFetch(), // small buffers per streamed reply (provider_fetch.ts)
  });
  nameProvider(client, info.code);
  return { client, info, timeoutMs: deps.config.aiTimeoutMs };
}
