/**
 * The history's search box as tsqueries, one per word: every word (letters and
 * digits) must appear somewhere in the conversation, each as a prefix, so
 * "refund" finds "refunds" and "refunded". Words
 * are reduced to letters and digits here, so nothing typed can reach tsquery's
 * own syntax (quotes, `&`, `|`, `!`, `:`).
 */
import { Invalid } from "../errors.ts";

const MAX_TERMS = 8;
const MAX_TERM_CHARS = 60;

/** One tsquery per word of `text` (`simple` configuration); Invalid (422 on `q`) when it has none. */
export function searchTerms(text: string): string[] {
  const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  if (words.length === 0) {
    throw Invalid.field("q", "The search must contain at least one letter or digit.");
  }
  return words
    .slice(0, MAX_TERMS)
    .map((w) => `'${w.slice(0, MAX_TERM_CHARS)}':*`);
}
