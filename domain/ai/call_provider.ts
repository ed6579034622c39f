/**
 * The retry and error policy for every provider call: one retry after a
 * connection error or a 5xx (not after a timeout: a slow provider would only
 * double the visitor's wait), and every failure leaves as ProviderUnavailable
 * (502) with a message that points at the workspace's key.
 */
import OpenAI from "openai";
import { ProviderUnavailable } from "../errors.ts";

const RETRY_DELAY_MS = 250;

export const REFUSED_MESSAGE =
  "The AI provider refused the workspace's API key. Check the provider key configured for the workspace.";
export const UNREACHABLE_MESSAGE =
  "The AI provider could not be reached. Check the provider key configured for the workspace.";

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
  if (
    err instanceof OpenAI.AuthenticationError || err instanceof OpenAI.PermissionDeniedError
  ) {
    return new ProviderUnavailable(REFUSED_MESSAGE);
  }
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return new ProviderUnavailable(
      "The AI provider did not answer in time. Check the provider key configured for the workspace.",
    );
  }
  if (err instanceof OpenAI.APIError && typeof err.status === "number") {
    return new ProviderUnavailable(
      `The AI provider answered with HTTP ${err.status}. Check the provider key configured for the workspace.`,
    );
  }
  return new ProviderUnavailable(UNREACHABLE_MESSAGE);
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
