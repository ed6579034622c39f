/**
 * Embeddings through the OpenAI protocol, in batches, under the same retry
 * and error policy as chat. Vectors come back in input order.
 *
 * Several vendors (and many local model servers) have no embeddings API:
 * they answer 404, 405, 501, or a 400/422 "not supported". That answer will
 * not change on a retry, so it leaves as EmbeddingsUnsupported, and callers
 * fall back to full-text search instead of failing.
 */
import OpenAI from "openai";
import { callProvider } from "./call_provider.ts";
import { ProviderUnavailable } from "../errors.ts";
import { observeProviderCall } from "../observability/provider_calls.ts";

const BATCH = 96;
/** Embedding inputs are cut to stay under every vendor's per-input limit. */
const MAX_INPUT_CHARS = 8000;
/** Statuses meaning "no embeddings here", not "try again". */
const UNSUPPORTED = new Set([400, 404, 405, 422, 501]);

export class EmbeddingsUnsupported extends ProviderUnavailable {
  constructor(status: number) {
    super(
      `The AI provider has no embeddings API for this model (HTTP ${status}); ` +
        "knowledge is searched by full text only.",
      "rejected",
    );
  }
}

export async function embedTexts(
  client: OpenAI,
  model: string,
  texts: string[],
  signal?: AbortSignal,
): Promise<number[][]> {
  const out: number[][] = [];
  for (let i = 0; i < texts.length; i += BATCH) {
    const input = texts.slice(i, i + BATCH).map((t) => t.slice(0, MAX_INPUT_CHARS));
    const res = await observeProviderCall(
      client,
      model,
      "embeddings",
      () =>
        callProvider(async () => {
          try {
            return await client.embeddings.create({ model, input }, { signal });
          } catch (err) {
            if (err instanceof OpenAI.APIError && UNSUPPORTED.has(err.status as number)) {
              throw new EmbeddingsUnsupported(err.status as number);
            }
            throw err;
          }
        }, { signal }),
      (r) => ({ in: r.usage?.prompt_tokens ?? 0, out: 0 }),
    );
    const sorted = [...res.data].sort((a, b) => a.index - b.index);
    for (const d of sorted) out.push(d.embedding as number[]);
  }
  return out;
}
