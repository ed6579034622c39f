/**
 * The retry and error policy for every provider call: one retry after a
 * connection error or a 5xx (not after a timeout: a slow provider would only
 * double the visitor's wait), and every failure leaves as ProviderUnavailable
 * (502) whose kind and message name the real cause: a refused key, an
 * unreachable provider, its rate limit, its own fault, or a refused request.
 */
import OpenAI from "openai";
import { ProviderUnavailable } from "../errors.ts";

const RETRY_DELAY_MS = 250;

/** Whether an error is the caller's abort (not a provider failure). */
export function isAbort(err: unknown): boolean {
  return err instanceof OpenAI.APIUserAbortError ||
    (err instanceof Error && err.name === "AbortError");
}

function retryable(err: unknown): boolean {
  if (err instanceof OpenAI.APIConnectionTimeoutError) return false;
  if (err instanceof OpenAI.APIConnectionError) return true;
  return err instanceof OpenAI.APIError && typeof err.status === "number" && err.status >= 500;
}

/** Translate a provider failure into our error kind; aborts pass through untouched. */
export function providerFailure(err: unknown): unknown {
  if (isAbort(err)) return err;
  if (err instanceof ProviderUnavailable) return err;
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return new ProviderUnavailable(
      "The AI provider did not answer in time (AI_TIMEOUT_MS). The key was not the problem: " +
        "check the provider's status or the network.",
      "unreachable",
    );
  }
  if (err instanceof OpenAI.APIConnectionError) {
    return new ProviderUnavailable(
      `The AI provider could not be reached (${connectionDetail(err)}). The key was not ` +
        "checked: look at the network, or at AI_BASE_URL when one is set.",
      "unreachable",
    );
  }
  if (!(err instanceof OpenAI.APIError) || typeof err.status !== "number") {
    return new ProviderUnavailable(
      "The AI provider could not be reached. The key was not checked: look at the network.",
      "unreachable",
    );
  }
  const status = err.status;
  if (status === 401 || status === 403) {
    return new ProviderUnavailable(
      `The AI provider refused the API key (HTTP ${status}). Check the provider key ` +
        "configured for the workspace.",
      "key_refused",
    );
  }
  if (status === 429) {
    return new ProviderUnavailable(
      "The AI provider is rate limiting this key (HTTP 429). Try again later, or raise the " +
        "limit with the provider.",
      "rate_limited",
    );
  }
  if (status >= 500) {
    return new ProviderUnavailable(
      `The AI provider failed with HTTP ${status} (a fault on its side, not the key). ` +
        "Try again later.",
      "provider_error",
    );
  }
  return new ProviderUnavailable(
    `The AI provider refused the request with HTTP ${status}: ${providerText(err)}. ` +
      "Check the bot's provider and model.",
    "rejected",
  );
}

/** A short, stable name for a connection failure, from the runtime's error text. */
function connectionDetail(err: InstanceType<typeof OpenAI.APIConnectionError>): string {
  let text = "";
  for (let cur: unknown = err; cur && text.length < 2000; cur = (cur as Error).cause) {
    text += ` ${(cur as Error).message ?? ""}`;
  }
  if (/refused/i.test(text)) return "connection refused";
  if (/dns|lookup|resolve|name or service|nodename|getaddrinfo|enotfound|eai_again/i.test(text)) {
    return "host name not found";
  }
  if (/certificate|tls|ssl/i.test(text)) return "TLS failure";
  if (/reset|closed|broken pipe|hang up/i.test(text)) return "connection closed";
  return "network error";
}

/** The provider's own reason, one line and bounded (it reaches logs and API bodies). */
function providerText(err: InstanceType<typeof OpenAI.APIError>): string {
  const body = err.error as { message?: unknown } | undefined;
  const raw = typeof body?.message === "string" ? body.message : err.message;
  const line = raw.replace(/\s+/g, " ").trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line || "no reason given";
}

/**
 * Run `attempt` with the policy above. `canRetry` lets a streaming call refuse
 * the retry once text has reached the visitor.
 */
export async function callProvider<T>(
  attempt: () => Promise<T>,
  opts: { signal?: AbortSignal; canRetry?: () => boolean } = {},
): Promise<T> {
  try {
    return await attempt();
  } catch (first) {
    if (!retryable(first) || opts.signal?.aborted || (opts.canRetry && !opts.canRetry())) {
      throw providerFailure(first);
    }
    await new Promise((r) => setTimeout(r, RETRY_DELAY_MS));
    try {
      return await attempt();
    } catch (second) {
      throw providerFailure(second);
    }
  }
}
