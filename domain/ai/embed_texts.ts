/**
 * Embeddings through the OpenAI protocol, in batches, under the same retry
 * and error policy as chat. Vectors come back in input order.
 */
import type OpenAI from "openai";
import { callProvider } from "./call_provider.ts";

const BATCH = 96;
/** Embedding inputs are cut to stay under every vendor's per-input limit. */
const MAX_INPUT_CHARS = 8000;

export async function embedTexts(
  client: OpenAI,
  model: string,
  texts: string[],
  signal?: AbortSignal,
): Promise<number[][]> {
  const out: number[][] = [];
  for (let i = 0; i < texts.length; i += BATCH) {
    const input = texts.slice(i, i + BATCH).map((t) => t.slice(0, MAX_INPUT_CHARS));
    const res = await callProvider(
      () => client.embeddings.create({ model, input }, { signal }),
      { signal },
    );
    const sorted = [...res.data].sort((a, b) => a.index - b.index);
    for (const d of sorted) out.push(d.embedding as number[]);
  }
  return out;
}
