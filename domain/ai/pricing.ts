/**
 * Per-model prices, held as US dollars per million tokens (how vendors publish
 * them) and charged in integer micro-cents: $1 per 1M tokens is 100
 * micro-cents per token, so costs stay exact integers.
 */

/** The currency every price and cost is in (ISO 4217), said wherever a cost is shown. */
export const COST_CURRENCY = "USD";

interface Price {
  input: number;
  output: number;
}

const PRICES: Record<string, Price> = {
  "gpt-4o-mini": { input: 0.15, output: 0.6 },
  "gpt-4o": { input: 2.5, output: 10 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6 },
  "gpt-4.1": { input: 2, output: 8 },
  "claude-3-5-haiku-latest": { input: 0.8, output: 4 },
  "claude-3-5-sonnet-latest": { input: 3, output: 15 },
  "gemini-2.0-flash": { input: 0.1, output: 0.4 },
  "mistral-small-latest": { input: 0.1, output: 0.3 },
  "mistral-large-latest": { input: 2, output: 6 },
  "llama-3.1-8b-instant": { input: 0.05, output: 0.08 },
  "deepseek-chat": { input: 0.27, output: 1.1 },
  "grok-3-mini": { input: 0.3, output: 0.5 },
  "openai/gpt-4o-mini": { input: 0.15, output: 0.6 },
  "text-embedding-3-small": { input: 0.02, output: 0 },
  "text-embedding-004": { input: 0, output: 0 },
  "mistral-embed": { input: 0.1, output: 0 },
};

/** Unknown models are charged like a mid-priced small model rather than free. */
const FALLBACK: Price = { input: 0.5, output: 1.5 };

/** Cost of one call in micro-cents (1 micro-cent = 10^-6 US cent). */
export function costMicroCents(model: string, tokensIn: number, tokensOut: number): number {
  const p = PRICES[model] ?? FALLBACK;
  return Math.round(tokensIn * p.input * 100 + tokensOut * p.output * 100);
}
