/**
 * What a product is, read from its name: the head noun of the name's first
 * phrase ("Fountain Pen Ink Cartridges, Blue-Black, 20 Pack" is cartridges,
 * "Ink Converter for Fountain Pens" a converter, "Cordless Hedge Trimmer 18V
 * 45 cm" a trimmer), and whether a question names it. A product whose name
 * only holds the question's words as modifiers (ink for "fountain pens", a
 * stove for "a backpack", pouches for "a laminator") is something else
 * beside it; recommend_products.ts shows it only when no product is named.
 */

/** Words naming how products come grouped or packed, not what they are ("Light Set"). */
const GROUPING = new Set([
  "set",
  "sets",
  "pack",
  "packs",
  "kit",
  "kits",
  "bundle",
  "pair",
  "pairs",
]);

/** Where a name's first phrase ends: a comma, a bracket, a dash, "with", "for"… */
const PHRASE_END = /,|\(|\s[-–—|/]\s|\s(?:with|for|in|by|from|and|plus|incl\.?|including)\s/u;

/** The words of a product name's first phrase, lower case. */
function firstPhrase(name: string): string[] {
  const phrase = name.toLowerCase().split(PHRASE_END)[0] ?? "";
  return phrase.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
}

/** The head noun of a product name (lower case), or null when it has none. */
function productHead(name: string): string | null {
  const words = firstPhrase(name);
  for (let i = words.length - 1; i >= 0; i--) {
    const w = words[i]!;
    if (/\d/u.test(w)) continue; // "A4", "18V", "250"
    // A unit after an amount: "45 cm", "50 ml", "45 L".
    if (i > 0 && /\d/u.test(words[i - 1]!) && w.length <= 3) continue;
    if (GROUPING.has(w) && i > 0) continue;
    return w;
  }
  return null;
}

/** A word's singular as plain English rules give it (enough to compare two nouns). */
function singularOf(word: string): string {
  const w = word.toLowerCase();
  if (w.length > 4 && w.endsWith("ies")) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && /(?:ches|shes|sses|xes|zes|oes)$/u.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith("s") && !/(?:ss|us|is)$/u.test(w)) return w.slice(0, -1);
  return w;
}

/** Whether `head` is one of `words` (as nouns: "pen" is "pens", "pencil" is not "pen"). */
function namesHead(head: string | null, words: Iterable<string>): boolean {
  if (head === null) return false;
  const h = singularOf(head);
  for (const w of words) if (singularOf(w) === h) return true;
  return false;
}

/**
 * Whether a product named `name` is one of the things `words` name: its head
 * is one of them, or a plural among its first phrase's words is (a noun used
 * as a modifier is singular, "pen ink"; a plural is the head, and what follows
 * it a model name: "Waterproof Hiking Boots Trail").
 */
export function namesProduct(name: string, words: Iterable<string>): boolean {
  const asked = [...words];
  if (namesHead(productHead(name), asked)) return true;
  return firstPhrase(name).some((w) => singularOf(w) !== w && namesHead(w, asked));
}
