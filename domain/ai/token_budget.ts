/**
 * Token arithmetic without a tokenizer: about four characters a token for
 * English prose. Budgets are conservative, so an estimate that is off by a
 * few percent never overflows a model's context.
 */

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Cut `text` to about `tokens` tokens, at a word boundary when one is near. */
export function truncateToTokens(text: string, tokens: number): string {
  const max = tokens * 4;
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return (space > max * 0.8 ? cut.slice(0, space) : cut) + " …";
}
