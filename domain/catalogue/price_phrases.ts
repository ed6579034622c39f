/**
 * The words a shopper says a price with (price_limits.ts reads them): the
 * currencies, the phrasings of a ceiling, a floor, a range and "about", in
 * English, German, French, Spanish, Dutch, Italian and Portuguese, the units
 * that make a number no price, and the price words that say nothing of the
 * product. Regular-expression sources, lower case.
 */

export const SYMBOLS = "€$£¥₹₩₽₺₴₫₱₪฿";
/** A dollar with its country: "US$", "A$", "CA$", "NZ$", "HK$", "S$". */
export const PREFIXED_DOLLAR = "(?:us|au|a|ca|c|nz|hk|s)\\$";
export const CURRENCY_WORDS = [
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
  "pence",
  "lira",
  "lire",
  "yuan",
  "rmb",
  "cny",
  "zar",
  "baht",
  "thb",
  "shekels?",
  "dirhams?",
  "aed",
  "sgd",
  "hkd",
  "czk",
  "k[čc]",
  "huf",
  "forints?",
];
export const CURRENCY_WORD = `(?:${CURRENCY_WORDS.join("|")})`;
export const CURRENCY = `(?:${PREFIXED_DOLLAR}|[${SYMBOLS}]|${CURRENCY_WORD}(?![\\p{L}]))`;
export const NUMBER = `\\d{1,3}(?:[.,'’]\\d{3})+(?:[.,]\\d{1,2})?|\\d+(?:[.,]\\d{1,2})?`;
/** An amount, its currency before or after it (or none), captured as `cur1 num cur2`. */
export const AMOUNT = `(?:(${CURRENCY})\\s?)?(${NUMBER})(?:,-)?(?:\\s?(${CURRENCY}))?`;

export const CEILINGS = [
  "(?:a\\s+)?max(?:imum)?\\s+of",
  "(?:no|not)\\s+(?:higher|pricier|dearer|more\\s+expensive)\\s+than",
  "not\\s+(?:above|exceeding)",
  "less\\s+expensive\\s+than",
  "capped\\s+at",
  "sub-?",
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
export const FLOORS = [
  "(?:a\\s+)?min(?:imum)?\\s+of",
  "(?:more\\s+expensive|pricier|dearer)\\s+than",
  "in\\s+excess\\s+of",
  "starting\\s+from",
  "north\\s+of",
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
export const ABOUT = [
  "in\\s+the\\s+region\\s+of",
  "somewhere\\s+around",
  "close\\s+to",
  "approx\\.?",
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
export const CEILING_AFTER = [
  "or less",
  "or under",
  "or cheaper",
  "and under",
  "and below",
  "max(?:imum)?",
  "tops",
  "at most",
];
/** After an amount: "£50 or so", "50ish". */
export const ABOUT_AFTER = ["or\\s+so", "-?ish", "give\\s+or\\s+take", "or\\s+thereabouts"];
export const FLOOR_AFTER = [
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
/** Before a ceiling these make it a floor: "no less than 20", "not under 50". */
export const NEGATED_CEILINGS = [
  "(?:no|not)\\s+(?:less|cheaper|lower)\\s+than",
  "not\\s+(?:under|below)",
];
export const RANGE_PAIRS = [
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
export const UNIT = new RegExp(
  "^\\s?(?:kg|g|grams?|cm|mm|m|km|l|litres?|liters?|ml|w|wh|watts?|v|bar|psi|lumens?|lm|" +
    "persons?|people|personen|years?|yrs?|jahre|ans|años|jaar|days?|hours?|minutes?|months?|" +
    "weeks?|x|%|inch(?:es)?|in\\b|ft|feet|lbs?|speeds?|gears?|mph|kmh|gb|tb)(?![\\p{L}])",
  "iu",
);
/** Words before a number that make it an age or a count ("kids under 5"). */
export const NOT_PRICE_BEFORE =
  /(?:aged?|ages|kids?|child(?:ren)?|toddlers?|babies|baby|people|size)\s*$/iu;
/**
 * Words that ask about price and say nothing of the product: neutral, like
 * the currencies (the help centre uses them too: "prices include VAT").
 */
export const PRICE_WORDS = new RegExp(
  "(?<![\\p{L}])(?:prices?|priced|pricing|pricey|costs?|costing|cheap|cheaper|cheapest|" +
    "inexpensive|expensive|affordable|afford|budget|spend|preis(?:e|lich)?|kostet|kosten|" +
    "g[üu]nstig(?:e|er|en)?|billig(?:e|er)?|teuer|prix|co[ûu]te?|cher|ch[èe]re|precios?|cuesta|" +
    "barat[oa]s?|caro|prijs|prijzen|kost|goedkoop|goedkope|duur|prezzo|costa|economico|pre[çc]o)" +
    "(?![\\p{L}])",
  "giu",
);
