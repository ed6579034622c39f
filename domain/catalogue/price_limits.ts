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

const SYMBOLS = "€$£¥₹₩₽";
const CURRENCY_WORDS = [
  "euros?",
  "eur",
  "dollars?",
  "usd",
  "aud",
  "cad",
  "nzd",
  "bucks",
  "pounds?",
  "gbp",
  "quid",
  "francs?",
  "chf",
  "fr\\.",
  "yen",
  "jpy",
  "kr\\.?",
  "kronor",
  "kronur",
  "krona",
  "krone[rn]?",
  "sek",
  "nok",
  "dkk",
  "z[lł]oty",
  "pln",
  "rupees?",
  "inr",
  "reais",
  "brl",
  "pesos?",
  "mxn",
  "cents?",
];
const CURRENCY_WORD = `(?:${CURRENCY_WORDS.join("|")})`;
const CURRENCY = `(?:[${SYMBOLS}]|${CURRENCY_WORD}(?![\\p{L}]))`;
const NUMBER = `\\d{1,3}(?:[.,'’]\\d{3})+(?:[.,]\\d{1,2})?|\\d+(?:[.,]\\d{1,2})?`;
/** An amount, its currency before or after it (or none), captured as `cur1 num cur2`. */
const AMOUNT = `(?:(${CURRENCY})\\s?)?(${NUMBER})(?:,-)?(?:\\s?(${CURRENCY}))?`;

const CEILINGS = [
  "under",
  "below",
  "beneath",
  "less than",
  "cheaper than",
  "lower than",
  "at most",
  "at the most",
  "no more than",
  "not more than",
  "not over",
  "max(?:imum)?\\.?",
  "up to",
  "within",
  "budget(?: is| of)?",
  "[<≤]=?",
  "unter",
  "weniger als",
  "bis(?: zu)?",
  "h[öo]chstens",
  "maximal",
  "billiger als",
  "g[üu]nstiger als",
  "moins de",
  "moins que",
  "au plus",
  "au maximum",
  "jusqu['’]?[àa]",
  "sous",
  "menos de",
  "hasta",
  "como m[áa]ximo",
  "por debajo de",
  "onder",
  "minder dan",
  "tot",
  "maximaal",
  "hoogstens",
  "meno di",
  "sotto",
  "fino a",
  "al massimo",
  "at[ée]",
  "no m[áa]ximo",
];
const FLOORS = [
  "over",
  "above",
  "more than",
  "at least",
  "from",
  "starting at",
  "upwards of",
  "min(?:imum)?\\.?",
  "[>≥]=?",
  "[üu]ber",
  "mehr als",
  "ab",
  "mindestens",
  "plus de",
  "au moins",
  "[àa] partir de",
  "d[èe]s",
  "m[áa]s de",
  "desde",
  "al menos",
  "como m[íi]nimo",
  "boven",
  "meer dan",
  "vanaf",
  "minstens",
  "pi[ùu] di",
  "almeno",
  "mais de",
  "acima de",
  "a partir de",
];
const ABOUT = [
  "around",
  "about",
  "approximately",
  "roughly",
  "~",
  "circa",
  "ca\\.",
  "etwa",
  "ungef[äa]hr",
  "rund",
  "um die",
  "environ",
  "autour de",
  "alrededor de",
  "aproximadamente",
  "ongeveer",
  "rond",
  "circa",
];
/** After an amount: "40 dollars or less", "30 euros and up", "60€ max". */
const CEILING_AFTER = [
  "or less",
  "or under",
  "or cheaper",
  "and under",
  "and below",
  "max(?:imum)?",
  "tops",
  "at most",
];
const FLOOR_AFTER = [
  "or more",
  "and up",
  "and above",
  "or above",
  "up",
  "\\+",
  "plus",
  "upwards",
  "und mehr",
  "et plus",
  "o m[áa]s",
  "of meer",
];
const RANGE_PAIRS = [
  ["between", "and"],
  ["from", "to"],
  ["zwischen", "und"],
  ["von", "bis"],
  ["entre", "et"],
  ["de", "[àa]"],
  ["entre", "y"],
  ["de", "a"],
  ["tussen", "en"],
  ["van", "tot"],
  ["tra", "e"],
  ["fra", "e"],
  ["entre", "e"],
  ["", "(?:-|–|to|bis|[àa]|tot)"],
];
/** Units that make a number something other than a price ("under 5 kg", "for 2 people"). */
const UNIT = new RegExp(
  "^\\s?(?:kg|g|grams?|cm|mm|m|km|l|litres?|liters?|ml|w|wh|watts?|v|bar|psi|lumens?|lm|" +
    "persons?|people|personen|years?|yrs?|jahre|ans|años|jaar|days?|hours?|minutes?|months?|" +
    "weeks?|x|%|inch(?:es)?|in\\b|ft|feet|lbs?|speeds?|gears?|mph|kmh|gb|tb)(?![\\p{L}])",
  "iu",
);
/** Words before a number that make it an age or a count ("kids under 5"). */
const NOT_PRICE_BEFORE =
  /(?:aged?|ages|kids?|child(?:ren)?|toddlers?|babies|baby|people|size)\s*$/iu;
/**
 * Words that ask about price and say nothing of the product: neutral, like
 * the currencies (the help centre uses them too: "prices include VAT").
 */
const PRICE_WORDS = new RegExp(
  "(?<![\\p{L}])(?:prices?|priced|pricing|pricey|costs?|costing|cheap|cheaper|cheapest|" +
    "inexpensive|expensive|affordable|afford|budget|spend|preis(?:e|lich)?|kostet|kosten|" +
    "g[üu]nstig(?:e|er|en)?|billig(?:e|er)?|teuer|prix|co[ûu]te?|cher|ch[èe]re|precios?|cuesta|" +
    "barat[oa]s?|caro|prijs|prijzen|kost|goedkoop|goedkope|duur|prezzo|costa|economico|pre[çc]o)" +
    "(?![\\p{L}])",
  "giu",
);
const CURRENCY_ALONE = new RegExp(`(?<![\\p{L}])${CURRENCY}`, "giu");

function alternation(words: string[]): string {
  return `(?:${words.join("|")})`;
}

const LEFT = "(?<![\\p{L}\\p{N}])";
const RANGE = new RegExp(
  RANGE_PAIRS.map(([a, b]) => `${a ? `${LEFT}${a}\\s+` : LEFT}${AMOUNT}\\s*${b}\\s*${AMOUNT}`).join(
    "|",
  ),
  "giu",
);
const CEILING = new RegExp(`${LEFT}${alternation(CEILINGS)}\\s*${AMOUNT}`, "giu");
const FLOOR = new RegExp(`${LEFT}${alternation(FLOORS)}\\s*${AMOUNT}`, "giu");
const NEAR = new RegExp(`${LEFT}(?:for\\s+)?${alternation(ABOUT)}\\s*${AMOUNT}`, "giu");
const AFTER = new RegExp(
  `${LEFT}${AMOUNT}\\s*(${alternation(CEILING_AFTER)}|${alternation(FLOOR_AFTER)})(?![\\p{L}])`,
  "giu",
);
const FOR_AMOUNT = new RegExp(`${LEFT}(?:for|f[üu]r|pour|por|voor|per)\\s+${AMOUNT}`, "giu");
const ANY_AMOUNT = new RegExp(`${LEFT}${AMOUNT}`, "giu");

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
 * price words. A bare amount needs a currency to count ("for 70 euros"); one
 * after a ceiling, floor or range word counts without ("under 60"), unless a
 * unit follows ("under 5 kg") or it is an age ("kids under 5").
 */
export function readPriceLimits(query: string): { limits: PriceLimits; text: string } {
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
      // A bare "2-3" (no words, no currency) is not a price range.
      if (i + 6 === g.length && !a.priced && !b.priced) return false;
      limits.min = Math.min(a.value, b.value);
      limits.max = Math.max(a.value, b.value);
      return true;
    }
    return false;
  });
  cut(AFTER, (g, m) => {
    const a = amountAt(g.slice(0, 3), m.input, m.index + m[0].length - g[3]!.length, m.index);
    if (!a) return false;
    if (new RegExp(`^${alternation(CEILING_AFTER)}$`, "iu").test(g[3]!)) limits.max = a.value;
    else limits.min = a.value;
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
