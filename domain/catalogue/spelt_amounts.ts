/**
 * Amounts a shopper says in words (issue 42: "prices in any phrasing"):
 * "under fifty quid", "a hundred and twenty euros", "under a tenner",
 * "two grand", "1.5k". Written as digits so price_limits.ts reads them like
 * any amount; English only (the other languages' shoppers write digits far
 * more often, and "un", "ein", "een" are articles). The caller keeps the
 * spelt-out reading only where a price was read from it, so "a two person
 * tent" or "a 4k monitor" keep their words.
 */

const UNITS: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
const SCALES: Record<string, number> = { hundred: 100, thousand: 1000 };
/** British money nouns: each says its amount and that it is money. */
const MONEY_NOUNS: Record<string, number> = { tenner: 10, fiver: 5, grand: 1000 };

const NUMBER_WORD = `(?:${[...Object.keys(UNITS), ...Object.keys(SCALES)].join("|")})`;
/**
 * "a hundred and fifty", "twenty-five", "two thousand five hundred"; "and"
 * joins only after a hundred or a thousand ("between twenty and fifty" is two).
 */
const SPELT = new RegExp(
  `(?<![\\p{L}])(?:(?:a|an)\\s+(?=hundred|thousand))?${NUMBER_WORD}` +
    `(?:(?:(?<=hundred|thousand)\\s+and\\s+|[\\s-]+)${NUMBER_WORD})*(?![\\p{L}])`,
  "giu",
);
/**
 * "a tenner", "2 fivers", "3 grand" ("two grand" once spelt out); "a grand"
 * only after a price word ("under a grand"), not "a grand piano".
 */
const NOUN = new RegExp(
  "(?<![\\p{L}])(?:(\\d+(?:[.,]\\d+)?|a|an)\\s*)?(tenners?|fivers?)(?![\\p{L}])|" +
    "(?<![\\p{L}])(?:(\\d+(?:[.,]\\d+)?)\\s*|(?<=(?:under|below|over|above|than|about|around|" +
    "to|max|budget|for|spend|tops)\\s+)an?\\s+)(grand)(?![\\p{L}])",
  "giu",
);
/** "2k", "1.5k", "€2k". */
const THOUSANDS = /(?<![\p{L}\p{N}.,])(\d+(?:[.,]\d)?)\s?k(?![\p{L}])/giu;

function valueOf(words: string): number {
  let total = 0;
  let current = 0;
  for (const w of words.toLowerCase().split(/[\s-]+/)) {
    if (w === "a" || w === "an" || w === "and") continue;
    const scale = SCALES[w];
    if (scale === 100) current = (current || 1) * 100;
    else if (scale) {
      total += (current || 1) * scale;
      current = 0;
    } else current += UNITS[w] ?? 0;
  }
  return total + current;
}

/**
 * `text` with amounts said in words as digits ("fifty quid" → "50 quid",
 * "a tenner" → "10 quid", "2k" → "2000"), and the numerals written in; the
 * same text when there are none.
 */
export function spellOutAmounts(text: string): { text: string; written: string[] } {
  const written: string[] = [];
  const put = (n: number, money: boolean) => {
    const s = String(Math.round(n * 100) / 100);
    written.push(s);
    return money ? `${s} quid` : s;
  };
  let out = text.replace(SPELT, (words: string) => put(valueOf(words), false));
  out = out.replace(NOUN, (...m: (string | undefined)[]) => {
    const [count, noun] = m[2] ? [m[1], m[2]] : [m[3], m[4]];
    const each = MONEY_NOUNS[noun!.toLowerCase().replace(/s$/, "")]!;
    const n = count && /\d/.test(count) ? Number(count.replace(",", ".")) : 1;
    return put(n * each, true);
  });
  out = out.replace(THOUSANDS, (_, n: string) => put(Number(n.replace(",", ".")) * 1000, false));
  return { text: out, written };
}
