/**
 * AI provider calls, measured once for every caller (replies, suggestions,
 * summaries, embeddings): count, latency and tokens by provider, model,
 * operation and outcome, in a span of the trace. The provider's wire code
 * rides with its SDK client, named when the client is opened.
 */
import { inSpan, tracingOn } from "./tracing.ts";
import { metricsEnabled, recordProviderCall } from "./metrics.ts";
import { ProviderUnavailable } from "../errors.ts";
import { EmbeddingsUnsupported } from "../ai/embed_texts.ts";
import { isAbort } from "../ai/call_provider.ts";

const providerOf = new WeakMap<object, string>();

/** Remember which provider (`provider_1` …) an SDK client speaks to. */
export function nameProvider(client: object, code: string): void {
  providerOf.set(client, code);
}

/** `ok`, `aborted` (the visitor left), `unsupported` (no embeddings API), or the failure's kind. */
function outcomeOf(err: unknown): string {
  if (isAbort(err)) return "aborted";
  if (err instanceof EmbeddingsUnsupported) return "unsupported";
  if (err instanceof ProviderUnavailable) return err.kind;
  return "error";
}

export function observeProviderCall<T>(
  client: object,
  model: string,
  operation: "chat" | "embeddings",
  call: () => Promise<T>,
  tokensOf?: (result: T) => { in: number; out: number },
): Promise<T> {
  if (!tracingOn && !metricsEnabled()) return call();
  const provider = providerOf.get(client) ?? "unknown";
  const labels = { provider, model, operation };
  return inSpan(`ai.${operation}`, {
    "gen_ai.system": provider,
    "gen_ai.request.model": model,
    "gen_ai.operation.name": operation,
  }, async (span) => {
    const started = performance.now();
    try {
      const result = await call();
      const tokens = tokensOf?.(result);
      recordProviderCall(labels, "ok", (performance.now() - started) / 1000, tokens);
      if (span && tokens) {
        span.setAttribute("gen_ai.usage.input_tokens", tokens.in);
        span.setAttribute("gen_ai.usage.output_tokens", tokens.out);
      }
      return result;
    } catch (err) {
      const outcome = outcomeOf(err);
      recordProviderCall(labels, outcome, (performance.now() - started) / 1000);
      span?.setAttribute("parley.outcome", outcome);
      throw err;
    }
  });
}
