/**
 * "Test" on the Provider keys screen: one minimal call (a one-token chat
 * completion with the provider's default model) with the key typed in, before
 * it is saved, or the one that answers for the workspace now (its stored key,
 * else the server's AI_API_KEY or AI_BASE_URL). The outcome is a sentence for
 * an owner, never an error: a refused key, an unreachable provider and a
 * provider fault are answers, not failures of this request. The key never
 * appears in the answer.
 */
import OpenAI from "openai";
import type { AppDeps } from "../deps.ts";
import { findProviderKey } from "../../db/provider_keys.ts";
import { decryptText } from "../auth/secrets.ts";
import { type ProviderInfo, providerInfo } from "../ai/providers.ts";
import { clientWithKey } from "../ai/provider_client.ts";
import { Invalid } from "../errors.ts";

export interface KeyTestOutcome {
  ok: boolean;
  message: string;
}

/** The test waits at most this long, however long AI_TIMEOUT_MS lets a reply take. */
const TEST_TIMEOUT_MS = 15_000;

/** Sent when AI_BASE_URL is set and no key exists (as provider_client.ts does). */
const KEYLESS = "none";

type KeyDeps = Pick<AppDeps, "sql" | "appKey" | "config">;

/** Which key answers for the workspace now, and how to say so; a reason when none can. */
async function currentKey(
  deps: KeyDeps,
  workspaceId: number,
  info: ProviderInfo,
): Promise<{ key: string; prefix: string } | { none: string }> {
  const stored = await findProviderKey(deps.sql, workspaceId, info.code);
  if (stored) {
    try {
      return { key: await decryptText(deps.appKey, stored.ciphertext), prefix: "" };
    } catch {
      return {
        none: `The stored ${info.label} key cannot be read (it was encrypted under another ` +
          "APP_KEY): store it again.",
      };
    }
  }
  if (deps.config.aiApiKey) {
    return {
      key: deps.config.aiApiKey,
      prefix: `No ${info.label} key is stored, so the server's AI_API_KEY was tested. `,
    };
  }
  if (deps.config.aiBaseUrl) {
    return {
      key: KEYLESS,
      prefix: `No ${info.label} key is stored, so the AI_BASE_URL server was tested without one. `,
    };
  }
  return { none: `No ${info.label} key is stored: enter one to test it.` };
}

function outcomeOf(err: unknown, info: ProviderInfo): KeyTestOutcome {
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return { ok: false, message: `${info.label} did not answer in time; the key was not checked.` };
  }
  if (err instanceof OpenAI.APIError && typeof err.status === "number") {
    const status = err.status;
    if (status === 401 || status === 403) {
      return { ok: false, message: `The provider refused the key (${status}).` };
    }
    if (status === 429) {
      return {
        ok: false,
        message: "The provider accepted the key but refused the call: rate limit or quota (429).",
      };
    }
    if (status === 404) {
      // Authentication passed; only the model used for the test is unknown there.
      return {
        ok: true,
        message: `The key works (the provider does not offer ${info.defaultModel}, the model ` +
          "used for the test).",
      };
    }
    return { ok: false, message: `The provider answered with an error (${status}).` };
  }
  return { ok: false, message: "Could not reach the provider; the key was not checked." };
}

export async function testProviderKey(
  deps: KeyDeps,
  workspaceId: number,
  provider: string,
  candidate?: string,
): Promise<KeyTestOutcome> {
  const info = providerInfo(provider);
  if (!info) throw Invalid.field("provider", "The selected provider is invalid.");
  const typed = candidate?.trim();
  const found = typed ? { key: typed, prefix: "" } : await currentKey(deps, workspaceId, info);
  if ("none" in found) return { ok: false, message: found.none };
  const { client } = clientWithKey(deps, info, found.key);
  try {
    await client.chat.completions.create(
      { model: info.defaultModel, messages: [{ role: "user", content: "ping" }], max_tokens: 1 },
      { timeout: Math.min(deps.config.aiTimeoutMs, TEST_TIMEOUT_MS) },
    );
    return { ok: true, message: `${found.prefix}The key works.` };
  } catch (err) {
    const outcome = outcomeOf(err, info);
    return { ...outcome, message: found.prefix + outcome.message };
  }
}
