/**
 * Which products a reply shows (the stream's `recommendations`), decided from
 * retrieval over the catalogue and the question, before the prompt is built,
 * so the prompt can name them. Modes (branding `recommend_mode`,
 * docs/answering.md):
 * - `off`: never; nothing is searched (nor for a workspace known to have no
 *   catalogue: catalogue_presence.ts).
 * - `reactive` (default): only when the question is about products: the
 *   best product holds question words (in its name or its description), and
 *   the question's words are mostly the catalogue's rather than the help
 *   centre's: a word the
 *   bot's knowledge uses and the shown products do not ("return", "refund",
 *   "password") marks a support question and counts against. Words neither
 *   knows ("much", "recommend") are neutral.
 * - `proactive`: also when the question's topic matches products well (a
 *   product's name, or half the question's words).
 * At most three, those in stock first (out of stock last), each within half
 * of the best's score. Full-text ranking is fused with vector similarity
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
/** A shown product scores at least this share of the best. */
const MIN_RELATIVE_SCORE = 0.5;
/** Reactive: the catalogue's share of the question's (non-neutral) words. */
const REACTIVE_SHARE = 0.6;
/** How much a help-centre-only word weighs against a product word. */
const SUPPORT_WORD_WEIGHT = 2;

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
  const words = questionWords(input.query);
  if (!words.length || knownToHaveNoCatalogue(input.workspaceId)) return [];
  // Known from the bot's provider code: the search need not wait for its client.
  const model = deps.db.vector ? providerInfo(input.bot.provider)?.embeddingModel ?? null : null;
  const search = await searchCatalogue(deps.sql, input.workspaceId, input.bot.id, {
    language: input.bot.language,
    words,
    limit: CANDIDATES,
    nameBoost: NAME_BOOST,
    embeddingModel: model,
  });
  if (search.size === 0) rememberNoCatalogue(input.workspaceId);
  if (search.size === 0 || !wanted(mode, search)) return [];
  const provider = search.embedded && model ? await input.provider : null;
  const vector = provider && model
    ? await vectorHits(deps, input.workspaceId, provider, model, input.query)
    : [];
  const byId = new Map<number, CatalogueProduct>();
  for (const p of [...search.hits, ...vector]) byId.set(p.id, p);
  const ranked = fuse(search.hits.map(asHit), vector.map(asHit));
  const best = ranked[0]?.score ?? 0;
  return ranked
    .filter((r) => r.score >= best * MIN_RELATIVE_SCORE)
    .map((r, rank) => ({ product: byId.get(r.id)!, rank }))
    // In stock first; within each group, the ranking's order.
    .sort((a, b) => Number(b.product.in_stock) - Number(a.product.in_stock) || a.rank - b.rank)
    .slice(0, MAX_SHOWN)
    .map(({ product }) => shown(product));
}

/** Whether this question, in this mode, shows products at all (see the module's comment). */
function wanted(mode: RecommendMode, search: CatalogueSearch): boolean {
  const top = search.hits[0];
  if (!top) return false;
  if (mode === "proactive") {
    return top.in_name.length > 0 || top.matched.length * 2 >= search.lexemes.length;
  }
  const productWords = new Set(search.hits.slice(0, MAX_SHOWN).flatMap((h) => h.matched));
  const supportOnly = search.knowledgeLexemes.filter((l) => !productWords.has(l)).length;
  const covered = top.matched.length;
  return covered / (covered + SUPPORT_WORD_WEIGHT * supportOnly) >= REACTIVE_SHARE;
}

async function vectorHits(
  deps: Pick<AppDeps, "sql" | "log">,
  workspaceId: number,
  provider: ProviderClient,
  model: string,
  query: string,
) {
  try {
    const [embedding] = await embedTexts(provider.client, model, [query]);
    if (!embedding) return [];
    return await searchCatalogueVector(deps.sql, workspaceId, {
      embedding,
      model,
      limit: CANDIDATES,
      minSimilarity: MIN_SIMILARITY,
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
    price: p.price_minor / 10 ** minorUnitDigits(p.currency),
    currency: p.currency,
    url: p.url,
    buy_url: p.buy_url,
    image_url: p.image_url,
    description: p.description,
    in_stock: p.in_stock,
  };
}
