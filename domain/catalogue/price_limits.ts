/**
 * A price limit in a shopper's question ("under 60 euros", "€40 max",
 * "between 2000 and 2500", "ab 100 €", "moins de 50 €"), read so the products
 * shown respect it, and the question without its prices, currencies and
 * price words, so that neither a currency ("euros" is a help-centre word:
 * "prices are in euros") nor a price makes a shopper look like a support
 * question. Phrasings of English, German, French, Spanish, Dutch, Italian and
 * Portuguese are read whatever the bot's language (a visitor writes in their
 * own); amounts in either convention: "1.500 €" and "1,500" are 1500,
 * "250,00" and "49.90" are decimals (a separator before exactly three digits
 * groups thousands).
 */

export interface PriceLimits {
  /** In whole currency units of the catalogue's currency; null: no bound. */
  min: number | null;
  max: number | null;
}

/** A bare "for 70 euros" allows this much above it. */
const BARE_TOLERANCE = 1.1;
/** "around 80 euros": this share below and above. */
const ABOUT_SPREAD = 0.2;

import {
  ABOUT,
  ABOUT_AFTER,
  AMOUNT,
  CEILING_AFTER,
  CEILINGS,
  CURRENCY,
  FLOOR_AFTER,
  FLOORS,
  NEGATED_CEILINGS,
  NOT_PRICE_BEFORE,
  PRICE_WORDS,
  RANGE_PAIRS,
  UNIT,
} from "./price_phrases.ts";
import { spellOutAmounts } from "./spelt_amounts.ts";

const CURRENCY_ALONE = new RegExp(`(?<![\\p{L}])${CURRENCY}`, "giu");

function alternation(words: string[]): string {
  return `(?:${words.join("|")})`;
}

const LEFT = "(?<![\\p{L}\\p{N}])";
/** "I'd pay under 50", "to spend up to 80": the verb goes with a limit. */
const PAY = "(?:(?:pay|paying|spend|spending)\\s+)?";
/** "under the £50 mark", "over the 100 euros". */
const THE = "(?:the\\s+)?";
const RANGE = new RegExp(
  RANGE_PAIRS.map(([a, b]) => `${a ? `${LEFT}${a}\\s+` : LEFT}${AMOUNT}\\s*${b}\\s*${AMOUNT}`).join(
    "|",
  ),
  "giu",
);
const NEGATED = new RegExp(
  `${LEFT}${PAY}${alternation(NEGATED_CEILINGS)}\\s*${THE}${AMOUNT}`,
  "giu",
);
const CEILING = new RegExp(`${LEFT}${PAY}${alternation(CEILINGS)}\\s*${THE}${AMOUNT}`, "giu");
const FLOOR = new RegExp(`${LEFT}${PAY}${alternation(FLOORS)}\\s*${THE}${AMOUNT}`, "giu");
const NEAR = new RegExp(
  `${LEFT}${PAY}(?:for\\s+)?${alternation(ABOUT)}\\s*${THE}${AMOUNT}`,
  "giu",
);
const AFTER = new RegExp(
  `${LEFT}${AMOUNT}\\s*(${alternation(CEILING_AFTER)}|${alternation(FLOOR_AFTER)}|${
    alternation(ABOUT_AFTER)
  })(?![\\p{L}])`,
  "giu",
);
const IS_CEILING_AFTER = new RegExp(`^${alternation(CEILING_AFTER)}$`, "iu");
const IS_ABOUT_AFTER = new RegExp(`^${alternation(ABOUT_AFTER)}$`, "iu");
const FOR_AMOUNT = new RegExp(`${LEFT}(?:for|f[üu]r|pour|por|voor|per)\\s+${AMOUNT}`, "giu");
const ANY_AMOUNT = new RegExp(`${LEFT}${AMOUNT}`, "giu");

/** A price word just before a bare range: "price 40-60", "budget: 20 to 30". */
const PRICE_BEFORE = new RegExp(
  "(?<![\\p{L}])(?:prices?|priced|costs?|costing|budget|spend|pay|preis|prix|precio|prijs|" +
    "prezzo|pre[çc]o)\\s*(?:is|of|range|around|about|:)?\\s*$",
  "iu",
);

/** "1.500" → 1500, "250,00" → 250, "1,299.90" → 1299.9. */
export function parseAmount(text: string): number {
  const seps = [...text.matchAll(/[.,'’]/g)];
  const last = seps.at(-1);
  if (!last) return Number(text);
  const decimals = text.length - last.index! - 1;
  const whole = text.slice(0, last.index).replace(/[.,'’]/g, "");
  if (decimals === 3 && !/[.,]\d{1,2}$/.test(text)) {
    return Number(whole + text.slice(last.index! + 1));
  }
  return Number(`${whole}.${text.slice(last.index! + 1)}`);
}

interface AmountMatch {
  value: number;
  priced: boolean;
}

/** An amount's value and whether it is one (a currency, or no unit after it). */
function amountAt(groups: (string | undefined)[], text: string, end: number, start: number) {
  const [cur1, num, cur2] = groups;
  const priced = Boolean(cur1 || cur2);
  if (!priced) {
    if (UNIT.test(text.slice(end))) return null;
    if (NOT_PRICE_BEFORE.test(text.slice(0, start))) return null;
  }
  return { value: parseAmount(num!), priced } satisfies AmountMatch;
}

/**
 * The question's price limits and its words without prices, currencies or
 * price words (`readWritten`), amounts said in words included ("under fifty
 * quid", "a tenner"): their digits are kept only where they were read as a
 * price, so "a two person tent" keeps its words.
 */
export function readPriceLimits(query: string): { limits: PriceLimits; text: string } {
  const plain = readWritten(query);
  const spelt = spellOutAmounts(query.toLowerCase());
  if (!spelt.written.length) return plain;
  const read = readWritten(spelt.text);
  const left = new Set(read.text.split(" "));
  const same = read.limits.min === plain.limits.min && read.limits.max === plain.limits.max;
  return same && spelt.written.every((n) => left.has(n)) ? plain : read;
}

/**
 * The question's price limits and its words without prices, currencies or
 * price words. A bare amount needs a currency to count ("for 70 euros"); one
 * after a ceiling, floor or range word counts without ("under 60"), unless a
 * unit follows ("under 5 kg") or it is an age ("kids under 5").
 */
function readWritten(query: string): { limits: PriceLimits; text: string } {
  let text = query.toLowerCase();
  const limits: PriceLimits = { min: null, max: null };
  const cut = (
    re: RegExp,
    take: (groups: (string | undefined)[], m: RegExpExecArray) => boolean,
  ) => {
    text = text.replace(re, (...args) => {
      const offset = args.at(-2) as number;
      const whole = args[0] as string;
      const m = Object.assign([whole, ...args.slice(1, -2)], {
        index: offset,
        input: text,
      }) as unknown as RegExpExecArray;
      return take(args.slice(1, -2) as (string | undefined)[], m) ? " " : whole;
    });
  };
  const end = (m: RegExpExecArray) => m.index + m[0].length;
  cut(RANGE, (g, m) => {
    // Each alternative has six groups; find the one that matched.
    for (let i = 0; i + 5 < g.length; i += 6) {
      if (g[i + 1] === undefined) continue;
      const a = amountAt(g.slice(i, i + 3), m.input, end(m), m.index);
      const b = amountAt(g.slice(i + 3, i + 6), m.input, end(m), m.index);
      if (!a || !b) return false;
      // A bare "2-3" (no words, no currency) is not a price range, unless a price word says so.
      if (
        i + 6 === g.length && !a.priced && !b.priced &&
        !PRICE_BEFORE.test(m.input.slice(0, m.index))
      ) return false;
      limits.min = Math.min(a.value, b.value);
      limits.max = Math.max(a.value, b.value);
      return true;
    }
    return false;
  });
  cut(AFTER, (g, m) => {
    const a = amountAt(g.slice(0, 3), m.input, m.index + m[0].length - g[3]!.length, m.index);
    if (!a) return false;
    if (IS_CEILING_AFTER.test(g[3]!)) limits.max = a.value;
    else if (IS_ABOUT_AFTER.test(g[3]!)) {
      limits.min = a.value * (1 - ABOUT_SPREAD);
      limits.max = a.value * (1 + ABOUT_SPREAD);
    } else limits.min = a.value;
    return true;
  });
  cut(NEGATED, (g, m) => {
    const a = amountAt(g, m.input, end(m), m.index);
    if (!a) return false;
    limits.min = limits.min === null ? a.value : Math.max(limits.min, a.value);
    return true;
  });
  cut(CEILING, (g, m) => {
    const a = amountAt(g, m.input, end(m), m.index);
    if (!a) return false;
    limits.max = limits.max === null ? a.value : Math.min(limits.max, a.value);
    return true;
  });
  cut(FLOOR, (g, m) => {
    const a = amountAt(g, m.input, end(m), m.index);
    if (!a) return false;
    limits.min = limits.min === null ? a.value : Math.max(limits.min, a.value);
    return true;
  });
  cut(NEAR, (g, m) => {
    const a = amountAt(g, m.input, end(m), m.index);
    if (!a) return false;
    limits.min ??= a.value * (1 - ABOUT_SPREAD);
    limits.max ??= a.value * (1 + ABOUT_SPREAD);
    return true;
  });
  cut(FOR_AMOUNT, (g, m) => {
    const a = amountAt(g, m.input, end(m), m.index);
    if (!a?.priced) return false;
    limits.max ??= a.value * BARE_TOLERANCE;
    return true;
  });
  // Any other amount with a currency ("I paid 749 euros") sets no limit but is no word either.
  cut(ANY_AMOUNT, (g) => Boolean(g[0] || g[2]));
  text = text.replace(CURRENCY_ALONE, " ").replace(PRICE_WORDS, " ");
  if (limits.min !== null && limits.max !== null && limits.min > limits.max) {
    [limits.min, limits.max] = [limits.max, limits.min];
  }
  return { limits, text: text.replace(/\s+/g, " ").trim() };
}

/** Whether a price (whole units) is within the limits. */
export function withinLimits(price: number, limits: PriceLimits): boolean {
  return (limits.min === null || price >= limits.min) &&
    (limits.max === null || price <= limits.max);
}
