/**
 * Which products a reply shows (the stream's `recommendations`), decided from
 * retrieval over the catalogue and the question, before the prompt is built,
 * so the prompt can name them. Modes (branding `recommend_mode`,
 * docs/answering.md):
 * - `off`: never; nothing is searched (nor for a workspace known to have no
 *   catalogue: catalogue_presence.ts).
 * - `reactive` (default): only when the question is about products: it is
 *   not about something already bought (a charge, an order, a return, a
 *   fault, how to work what one has: after_purchase.ts), the best product
 *   holds question words (in its name or its description), and the question's
 *   words are mostly the catalogue's rather than the help centre's: a word the
 *   bot's knowledge uses and the shown products do not ("return", "refund",
 *   "password") marks a support question and counts against. Words neither
 *   knows ("much", "recommend") are neutral.
 * - `proactive`: also when the question's topic matches products well (a
 *   product's name, or half the question's words).
 * The question is read as a shopper writes it first (issue 42): its price
 * limits are applied to the products (price_limits.ts) and its prices,
 * currencies and price words leave the words searched, so they never count
 * as help-centre words; an irregular plural's singular and a misspelt word's
 * correction from the catalogue's own words are searched too
 * (shopper_words.ts); words that say what the product goes with ("for my
 * bike", "for puppies", but not "looking for a bike") weigh less than those
 * that name it, and a product holding only those is not shown beside one that
 * holds what is asked for.
 * A need said in plain words ("see in the dark") also searches the
 * catalogue's words WordNet relates to a question word the catalogue does not
 * use (related_words.ts), at half weight; the verbs such needs are said with
 * ("see", "keep", "stop") never count as help-centre words.
 * A product is what its name's head noun says (product_head.ts): where some
 * candidate is what the question's wanted words name, only those are shown
 * (fountain pens, not the ink named after them), and one that is only what
 * the wanted product goes with (the trimmer, for "a charger for my hedge
 * trimmer") is dropped before the others are judged. "The cheapest" or "the
 * most expensive" shows the one at that end of the price range (price_order.ts).
 * At most three, those in stock first (out of stock last), each within half
 * of the best's fused score and, where full-text found it, 0.8 of the best's
 * full-text score and two thirds of its question words.
 * Full-text ranking is fused with vector similarity
 * (retrieve_chunks.ts `fuse`) when the catalogue is embedded with the bot's
 * provider's model.
 */
import type { AppDeps } from "../deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import {
  type CatalogueProduct,
  type CatalogueSearch,
  searchCatalogue,
  searchCatalogueVector,
} from "../../db/catalogue.ts";
import type { ChunkHit } from "../../db/knowledge.ts";
import { brandingOf, RECOMMEND_MODES } from "../chatbots/branding.ts";
import { embedTexts } from "../ai/embed_texts.ts";
import type { ProviderClient } from "../ai/provider_client.ts";
import { providerInfo } from "../ai/providers.ts";
import { fuse, MIN_SIMILARITY, questionWords } from "../knowledge/retrieve_chunks.ts";
import { minorUnitDigits } from "../money.ts";
import { knownToHaveNoCatalogue, rememberNoCatalogue } from "./catalogue_presence.ts";
import { afterPurchase } from "./after_purchase.ts";
import { type PriceLimits, readPriceLimits, withinLimits } from "./price_limits.ts";
import { priceOrderOf } from "./price_order.ts";
import { namesProduct } from "./product_head.ts";
import {
  forgetVocabulary,
  nearEnough,
  shopperAlternatives,
  vocabularyVersion,
} from "./shopper_words.ts";

/** A product as the `recommendations` event carries it (SPEC, stream events). */
export interface RecommendedProduct {
  id: string;
  name: string;
  /** In whole currency units (49.9 for 49.90 EUR). */
  price: number;
  currency: string;
  url: string;
  buy_url: string;
  image_url: string | null;
  description: string;
  in_stock: boolean;
}

export type RecommendMode = typeof RECOMMEND_MODES[number];

/** Products shown at most. */
export const MAX_SHOWN = 3;
/** Candidates ranked before the cut. */
const CANDIDATES = 12;
/** A question word in a product's name counts this many times. */
const NAME_BOOST = 2;
/** A shown product's fused score is at least this share of the best's. */
const MIN_RELATIVE_SCORE = 0.5;
/** And, where full-text found it, its full-text score this share of the best's (0.6 showed
 * a second product holding only the commoner words on the tuning sets). */
const MIN_RELATIVE_TEXT_SCORE = 0.8;
/** The share for a product in stock when the best is sold out: something to buy now. */
const MIN_RELATIVE_TEXT_SCORE_IN_STOCK = 0.6;
/** Reactive: the catalogue's share of the question's (non-neutral) words. */
const REACTIVE_SHARE = 0.6;
/** How much a help-centre-only word weighs against a product word. */
const SUPPORT_WORD_WEIGHT = 2;
/** A word after "for my", "for the"… (what the product goes with) against one naming it. */
const CONTEXT_WEIGHT = 0.5;
/**
 * Verbs (as stemmed) a shopper says a need with ("to see in the dark", "to
 * keep my knives sharp", "stop me slipping"), and the words a shopper asks
 * with ("do you sell", "something", "any ideas"): a help centre uses them
 * too, but they name no help-centre topic, so they never count against.
 */
const NEED_VERBS = new Set([
  "see",
  "get",
  "keep",
  "stop",
  "need",
  "want",
  "use",
  "make",
  "help",
  "find",
  "look",
  // And the words a shopper asks with ("do you sell", "something", "any ideas").
  "sell",
  "buy",
  "stock",
  "recommend",
  "suggest",
  "idea",
  "someth",
  "anyth",
  "thing",
]);
/**
 * Lexemes (as stemmed) that ask for a product without naming one: the need
 * verbs and asking words above, and "a gift for…", "I'd love…".
 */
const NAMES_NOTHING = new Set([
  ...NEED_VERBS,
  "gift",
  "present",
  "stuff",
  "good",
  "best",
  "have",
  "ani",
  "like",
  "love",
]);
/** What follows these says what the product is for, not what it is. */
const CONTEXT_START = new RegExp(
  "(?<![\\p{L}])(?:(?:for|on|to|with|fits?|onto|under)\\s+(?:my|your|our|his|her|their|the|a|an)" +
    // "toys for puppies": a plural after "for" is who it is for.
    "|for(?=\\s+\\p{L}+s(?![\\p{L}])))\\s",
  "gu", // global for matchAll, which copies it: no lastIndex is shared between calls
);
/** "looking for a commuter bike": what follows is what is wanted, not what it goes with. */
const ASKING_FOR = /(?:look|looking|search|searching|shopping|hunting|asking)\s+$/u;

export function recommendModeOf(bot: Pick<ChatbotRow, "branding">): RecommendMode {
  const mode = brandingOf(bot.branding).recommend_mode;
  return (RECOMMEND_MODES as readonly string[]).includes(mode) ? mode as RecommendMode : "reactive";
}

export async function recommendProducts(
  deps: Pick<AppDeps, "sql" | "log"> & { db: Pick<AppDeps["db"], "vector"> },
  input: {
    workspaceId: number;
    bot: Pick<ChatbotRow, "id" | "language" | "branding" | "provider">;
    query: string;
    provider?: Promise<ProviderClient | null>;
  },
): Promise<RecommendedProduct[]> {
  const mode = recommendModeOf(input.bot);
  if (mode === "off") return [];
  if (knownToHaveNoCatalogue(input.workspaceId)) return [];
  // About something already bought (a charge, a return, a fault): support, whatever it names.
  if (mode === "reactive" && afterPurchase(input.query)) return [];
  const { limits, text } = readPriceLimits(input.query);
  const { words, weights } = weighedWords(text);
  if (!words.length) return [];
  // Known from the bot's provider code: the search need not wait for its client.
  const model = deps.db.vector ? providerInfo(input.bot.provider)?.embeddingModel ?? null : null;
  const forms = await shopperAlternatives(deps.sql, input.workspaceId, words);
  const alternatives = forms.alternatives
    .map((a) => ({ ...a, weight: (weights[words.indexOf(a.of)] ?? 1) * (a.share ?? 1) }));
  const search = await searchCatalogue(deps.sql, input.workspaceId, input.bot.id, {
    language: input.bot.language,
    words,
    weights,
    alternatives,
    price: limits,
    unsure: forms.unsure,
    limit: CANDIDATES,
    nameBoost: NAME_BOOST,
    embeddingModel: model,
  });
  // A sync since the vocabulary was read: the next question reads it again.
  const cached = vocabularyVersion(input.workspaceId);
  if (cached !== null && cached !== search.version) forgetVocabulary(input.workspaceId);
  if (search.size === 0) rememberNoCatalogue(input.workspaceId);
  // A misspelt help-centre word ("refnd") counts as the word it misspells, unless it is as
  // likely a product word (the catalogue offered a correction).
  const corrected = new Set(forms.alternatives.filter((a) => !a.always).map((a) => a.of));
  const misspeltSupport = search.nearSupport
    .filter((n) => !corrected.has(n.word) && nearEnough(n.word, n.lex)).length;
  if (search.size === 0 || !wanted(mode, search, misspeltSupport)) return [];
  const provider = search.embedded && model ? await input.provider : null;
  const vector = provider && model
    ? await vectorHits(deps, input.workspaceId, provider, model, input.query, limits)
    : [];
  const byId = new Map<number, CatalogueProduct>();
  for (const p of [...search.hits, ...vector]) byId.set(p.id, p);
  // Where some product is what the question names, the others are only beside it; a
  // product that is what the wanted one goes with ("a bag for my bike": a bike) is not
  // among them at all, so the rest are judged against the best of what is left.
  const named = wordsOf(words, weights, forms.alternatives, (w) => w >= 1);
  // Only when the wanted part names something: "gift for a pen lover" wants a pen.
  const goesWith = search.headLexemes.some((l) => !NAMES_NOTHING.has(l))
    ? wordsOf(words, weights, forms.alternatives, (w) => w < 1)
    : new Set<string>();
  const fused = fuse(search.hits.map(asHit), vector.map(asHit));
  const isNamed = new Set(
    fused.filter((r) => namesProduct(byId.get(r.id)!.name, named)).map((r) => r.id),
  );
  const ranked = fused
    .filter((r) => isNamed.has(r.id) || !namesProduct(byId.get(r.id)!.name, goesWith));
  const best = ranked[0]?.score ?? 0;
  const enough = holdsEnough(search, new Set(ranked.map((r) => r.id)));
  const candidates = ranked
    .filter((r) => r.score >= best * MIN_RELATIVE_SCORE && enough(r.id))
    .map((r, rank) => ({ id: r.id, product: byId.get(r.id)!, rank }))
    .filter(({ product }) => withinLimits(priceOf(product), limits));
  const what = candidates.filter(({ id }) => isNamed.has(id));
  const order = priceOrderOf(input.query);
  return (what.length ? what : candidates)
    // In stock first; within each group, the ranking's order, or the price's when asked.
    .sort((a, b) =>
      Number(b.product.in_stock) - Number(a.product.in_stock) ||
      (order === null
        ? 0
        : (priceOf(a.product) - priceOf(b.product)) * (order === "cheapest" ? 1 : -1)) ||
      a.rank - b.rank
    )
    .slice(0, order === null ? MAX_SHOWN : 1)
    .map(({ product }) => shown(product));
}

/**
 * The question's words whose weight passes `keep` (what is wanted: 1; what it
 * goes with: less), with their other forms (plurals, corrections).
 */
function wordsOf(
  words: string[],
  weights: number[],
  alternatives: { of: string; alt: string }[],
  keep: (weight: number) => boolean,
): Set<string> {
  const chosen = new Set(words.filter((_, i) => keep(weights[i] ?? 1)));
  for (const a of alternatives) if (chosen.has(a.of)) chosen.add(a.alt);
  return chosen;
}

/**
 * The question's words, each weighted: 1 for those naming what is wanted,
 * CONTEXT_WEIGHT for those after "for my", "for the"… up to the end of the
 * sentence ("a pump for my road bike": the pump is wanted, not a bike).
 */
function weighedWords(text: string): { words: string[]; weights: number[] } {
  const weightOf = new Map<string, number>();
  for (const sentence of text.split(/[.!?;]+/)) {
    const at = contextStart(sentence);
    const head = at < 0 ? sentence : sentence.slice(0, at);
    const tail = at < 0 ? "" : sentence.slice(at);
    for (const w of questionWords(head)) weightOf.set(w, 1);
    for (const w of questionWords(tail)) if (!weightOf.has(w)) weightOf.set(w, CONTEXT_WEIGHT);
  }
  const words = questionWords(text).filter((w) => weightOf.has(w));
  return { words, weights: words.map((w) => weightOf.get(w)!) };
}

/** Where what the product goes with starts in `sentence` (-1: nowhere). */
function contextStart(sentence: string): number {
  for (const m of sentence.matchAll(CONTEXT_START)) {
    if (!ASKING_FOR.test(sentence.slice(0, m.index))) return m.index;
  }
  return -1;
}

/**
 * Whether a ranked product holds enough of the question to be shown beside
 * the best full-text hit still `kept`: 0.8 of its full-text score (0.6 for
 * one in stock when the best is sold out), two thirds of its matched words,
 * and a word naming what is wanted when the best holds one. A product the full-text search did not find
 * (vector similarity alone) is judged by its score only.
 */
function holdsEnough(search: CatalogueSearch, kept: Set<number>): (id: number) => boolean {
  const top = search.hits.find((h) => kept.has(h.id));
  if (!top) return () => true;
  const heads = new Set(search.headLexemes);
  // A word's other forms count as the word ("leaf rakes": "leaf" and "leaves" are one word).
  const formOf = new Map(search.forms.map((f) => [f.lex, f.of]));
  const words = (matched: string[]) => new Set(matched.map((l) => formOf.get(l) ?? l)).size;
  const topHolds = words(top.matched);
  const topHasHead = top.matched.some((l) => heads.has(l));
  const byId = new Map(search.hits.map((h) => [h.id, h]));
  return (id) => {
    const hit = byId.get(id);
    if (!hit) return true;
    const share = hit.in_stock && !top.in_stock
      ? MIN_RELATIVE_TEXT_SCORE_IN_STOCK
      : MIN_RELATIVE_TEXT_SCORE;
    if (hit.score < top.score * share) return false;
    if (topHasHead && !hit.matched.some((l) => heads.has(l))) return false;
    return words(hit.matched) * 3 >= topHolds * 2;
  };
}

function priceOf(p: CatalogueProduct): number {
  return p.price_minor / 10 ** minorUnitDigits(p.currency);
}

/** Whether this question, in this mode, shows products at all (see the module's comment). */
function wanted(mode: RecommendMode, search: CatalogueSearch, misspeltSupport: number): boolean {
  const top = search.hits[0];
  if (!top) return false;
  if (mode === "proactive") {
    return top.in_name.length > 0 || top.matched.length * 2 >= search.lexemes.length;
  }
  const productWords = new Set(search.hits.slice(0, MAX_SHOWN).flatMap((h) => h.matched));
  // A word some product holds is shared vocabulary ("dry", "warm"), not the help centre's alone.
  const anyProduct = new Set(search.catalogueLexemes);
  // Only the words as written count against: a plural's singular or a correction adds none.
  const written = new Set(search.writtenLexemes);
  const supportOnly = search.knowledgeLexemes
    .filter((l) =>
      written.has(l) && !productWords.has(l) && !anyProduct.has(l) && !NEED_VERBS.has(l)
    ).length +
    misspeltSupport;
  const covered = top.matched.length;
  return covered / (covered + SUPPORT_WORD_WEIGHT * supportOnly) >= REACTIVE_SHARE;
}

async function vectorHits(
  deps: Pick<AppDeps, "sql" | "log">,
  workspaceId: number,
  provider: ProviderClient,
  model: string,
  query: string,
  price: PriceLimits,
) {
  try {
    const [embedding] = await embedTexts(provider.client, model, [query]);
    if (!embedding) return [];
    return await searchCatalogueVector(deps.sql, workspaceId, {
      embedding,
      model,
      limit: CANDIDATES,
      minSimilarity: MIN_SIMILARITY,
      price,
    });
  } catch (err) {
    deps.log.warn("catalogue query embedding failed; full-text only", { err: String(err) });
    return [];
  }
}

/** A product in the shape the knowledge fusion ranks (each its own source: no diversity discount). */
function asHit(p: CatalogueProduct & { id: number; score: number }): ChunkHit {
  return {
    id: p.id,
    source_id: p.id,
    source_title: p.name,
    title: p.name,
    url: p.url,
    content: p.description,
    ordinal: 0, // a product is one passage of its own
    score: p.score,
  };
}

function shown(p: CatalogueProduct): RecommendedProduct {
  return {
    id: p.product_id,
    name: p.name,
    price: priceOf(p),
    currency: p.currency,
    url: p.url,
    buy_url: p.buy_url,
    image_url: p.image_url,
    description: p.description,
    in_stock: p.in_stock,
  };
}
