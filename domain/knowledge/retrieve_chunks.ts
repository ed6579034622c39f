/**
 * Retrieval: full-text ranked by BM25 (rare words count more, title and
 * heading matches boosted, a word the knowledge never uses searched by its
 * WordNet relations (thesaurus.ts) or, when it is misspelled, corrected by
 * trigram similarity; see db/knowledge.ts `searchChunksRanked`), fused with
 * vector similarity when the bot has embeddings, then spread over sources so
 * one document cannot fill the prompt. Design and figures: docs/answering.md, docs/BENCHMARKS.md.
 *
 * The fusion is score-aware and cannot hurt: a chunk's full-text score,
 * relative to the best one, counts fully, its vector similarity only up to
 * VECTOR_WEIGHT. A strong full-text match therefore stays ahead of every
 * chunk that only the vectors found, however poor the embeddings (the test
 * stub's word hashes); vectors decide among weak matches and supply chunks
 * that share no word with the question. Unrelated chunks stay out: full-text
 * needs a shared (or nearly shared) word, vector search a minimum cosine
 * similarity.
 */
import type { AppDeps } from "../deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import {
  type ChunkHit,
  type RankedSearch,
  searchChunksRanked,
  searchChunksVector,
} from "../../db/knowledge.ts";
import { embedTexts } from "../ai/embed_texts.ts";
import type { ProviderClient } from "../ai/provider_client.ts";
import { wordRelations } from "./thesaurus.ts";
import { cachedRankedSearch } from "./ranked_search_cache.ts";
import { observeRetrieval } from "../observability/retrieval.ts";

export type RetrieveDeps = Pick<AppDeps, "sql" | "log"> & { db: Pick<AppDeps["db"], "vector"> };

export interface RetrievedChunk {
  id: number;
  sourceId: number;
  sourceTitle: string;
  /** Place in the source: chunks one apart are neighbours in the text. */
  ordinal: number;
  title: string;
  url: string | null;
  content: string;
  /** Fused score: higher is better. */
  score: number;
}

/** Chunks offered to the prompt, best first; the prompt takes what fits its budget. */
const OFFERED = 40;
/** The best chunks, whose neighbours come before any lesser match (passages, not snippets). */
const SEEDS = 12;
/**
 * Full-text hits, and vector hits, whose neighbours each search brings in its
 * own round trip: the seeds are nearly always among them (fusion, diversity and
 * the exact-form bonus move a few). A seed outside them comes without its
 * neighbours rather than with another round trip.
 */
const NEIGHBOURS_OF = 12;
/** Ranked full-text and vector candidates fetched before fusion and diversity. */
const CANDIDATES = 40;
/** Candidates gathered per question term (bounds the cost on a 100,000-chunk base). */
const PER_TERM = 100;
/** Question words considered; more add little and cost a lookup each. */
const MAX_WORDS = 16;
/** A term found in the chunk's title or heading path counts this many times. */
const TITLE_BOOST = 2;
/** Below this trigram similarity a misspelled word is not corrected. */
const MIN_TRIGRAM_SIMILARITY = 0.3;
/** What a thesaurus word standing in for an unknown question word counts (its idf times this). */
const RELATED_WEIGHT = 0.5;
/**
 * A neighbour of one of the best chunks scores this share of it, and takes its
 * place among the other matches by that score: the text around the best
 * match of the best page is likelier to answer than a weak match elsewhere.
 */
const NEIGHBOUR_SHARE = 0.85;
/** A chunk that only lists questions (a "Related FAQs" index) counts this share of its score. */
const QUESTION_INDEX_WEIGHT = 0.5;
/** Bonus (times the term's idf) when the question's word appears as written, not only its stem. */
const EXACT_BONUS = 0.15;
/** What the best vector similarity can add to a full-text score normalised to 1. */
const VECTOR_WEIGHT = 0.5;
/** Each further chunk of a source already chosen counts this much less. */
const SOURCE_DECAY = 0.85;
/** Chunks scoring below this share of the best are left out: noise, not knowledge. */
const MIN_RELATIVE_SCORE = 0.1;
/** Below this cosine similarity a chunk is treated as unrelated. */
export const MIN_SIMILARITY = 0.35;

type RetrieveInput = Parameters<typeof searchKnowledge>[1];

/** The knowledge for a question, timed (/metrics) and in its own span of the trace. */
export function retrieveChunks(
  deps: RetrieveDeps,
  input: RetrieveInput,
): Promise<RetrievedChunk[]> {
  return observeRetrieval(() => searchKnowledge(deps, input));
}

async function searchKnowledge(
  deps: RetrieveDeps,
  input: {
    workspaceId: number;
    bot: Pick<ChatbotRow, "id" | "language">;
    query: string;
    limit?: number;
    /**
     * When given (and pgvector is on), the query is embedded for the vector
     * leg; a promise lets the full-text search start before the client is open.
     */
    provider?: ProviderClient | null | Promise<ProviderClient | null>;
    /**
     * The bot's knowledge generation, read with the bot: the full-text result
     * is then reused while it holds (ranked_search_cache.ts).
     */
    knowledgeGeneration?: number | null;
  },
): Promise<RetrievedChunk[]> {
  const limit = input.limit ?? OFFERED;
  // Whether the bot has embedded knowledge comes with the full-text search
  // (one round trip, not two); only then is the question embedded.
  const withVector = deps.db.vector && input.provider !== undefined && input.provider !== null;
  const words = questionWords(input.query);
  const { related, dictionaryWords } = thesaurusFor(words);
  const params = {
    language: input.bot.language,
    words,
    limit: CANDIDATES,
    perTerm: PER_TERM,
    minSimilarity: MIN_TRIGRAM_SIMILARITY,
    titleBoost: TITLE_BOOST,
    withEmbeddedFlag: withVector,
    related,
    relatedWeight: RELATED_WEIGHT,
    dictionaryWords,
    neighboursOf: NEIGHBOURS_OF,
  };
  const ranked = words.length
    ? cachedRankedSearch(
      deps.sql,
      input.knowledgeGeneration,
      [input.workspaceId, input.bot.id, params],
      () => searchChunksRanked(deps.sql, input.workspaceId, input.bot.id, params),
    )
    : Promise.resolve<RankedSearch>({
      hits: [],
      terms: [],
      botHasEmbeddings: withVector,
      near: [],
      nearOf: [],
    });
  const [search, vector] = await Promise.all([
    ranked,
    // A failed search fails the text side; the flag's copy of it must not be
    // a second, unhandled rejection (vectorCandidates may never await it).
    withVector
      ? vectorCandidates(deps, input, ranked.then((r) => r.botHasEmbeddings, () => false))
      : NO_VECTORS,
  ]);
  const best = diversify(fuse(exactFormBonus(withoutQuestionIndexes(search)), vector.hits));
  // A neighbour the searches also found is sent once, among their hits.
  const places = [...search.near, ...vector.near, ...search.hits, ...vector.hits];
  return withNeighbours(best, places).slice(0, limit);
}

/**
 * Passages, not snippets. A chunk is a section, or a part of one, and the one
 * that shares the question's words is often not the one that answers: the
 * steps follow the heading that matched, the rule comes after the intro that
 * named the feature, the answer sits in the next part of a long section. So
 * the chunk after and the chunk before each of the SEEDS best chunks come
 * too, scored NEIGHBOUR_SHARE of their seed (or their own score, when they
 * matched better), and everything is offered by score: a neighbour of the best
 * match goes ahead of a weak match on another page, a neighbour of a weak
 * match behind a strong one. (Placing every neighbour after the twelve seeds,
 * as before issue 42, left them out of a prompt that holds ten to thirteen
 * chunks.) The search brought the neighbours of its best hits (NEIGHBOURS_OF);
 * `near` also holds its hits, so a neighbour that is a hit too is found there.
 */
function withNeighbours(
  ranked: RetrievedChunk[],
  near: Omit<ChunkHit, "score">[],
): RetrievedChunk[] {
  const seeds = ranked.slice(0, SEEDS);
  if (!seeds.length) return ranked;
  const place = (sourceId: number, ordinal: number) => `${sourceId}:${ordinal}`;
  const chosen = new Map(ranked.map((c) => [place(c.sourceId, c.ordinal), c]));
  const found = new Map(near.map((n) => [place(n.source_id, n.ordinal), n]));
  const seedPlaces = new Set(seeds.map((c) => place(c.sourceId, c.ordinal)));
  for (const step of [1, -1]) {
    for (const seed of seeds) {
      const at = place(seed.sourceId, seed.ordinal + step);
      const n = found.get(at);
      if (!n || seedPlaces.has(at)) continue;
      const score = seed.score * NEIGHBOUR_SHARE;
      const already = chosen.get(at);
      if (already) {
        if (already.score < score) chosen.set(at, { ...already, score });
        continue;
      }
      chosen.set(at, {
        id: n.id,
        sourceId: n.source_id,
        sourceTitle: n.source_title,
        ordinal: n.ordinal,
        title: n.title,
        url: n.url,
        content: n.content,
        score,
      });
    }
  }
  // The seeds keep the order diversity gave them among themselves; the rest
  // take their place by score.
  const order = new Map(ranked.map((c, i) => [c.id, i]));
  return [...chosen.values()].sort((a, b) =>
    b.score - a.score || (order.get(a.id) ?? Infinity) - (order.get(b.id) ?? Infinity) ||
    a.id - b.id
  );
}

/** The question's distinct words, lower-cased, as typed (the database stems them). */
export function questionWords(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}_'’.-]*/gu) ?? [];
  const cleaned = words.map((w) => w.replace(/[.'’_-]+$/u, "")).filter((w) => w.length > 0);
  return [...new Set(cleaned)].slice(0, MAX_WORDS);
}

/**
 * What WordNet relates to each question word, for the words the bot's
 * vocabulary turns out not to know (the database decides, in the same round
 * trip), and which words are spelled right and must not be "corrected".
 */
function thesaurusFor(words: string[]) {
  const related: { word: string; of: string }[] = [];
  const dictionaryWords: string[] = [];
  for (const word of words) {
    const relations = wordRelations(word);
    if (!relations.known) continue;
    dictionaryWords.push(word);
    for (const r of relations.related) related.push({ word: r, of: word });
  }
  return { related, dictionaryWords };
}

/**
 * A chunk that is a list of questions ("Related FAQs: - How do I restore
 * deleted photos? - …") shares the visitor's words, being written as they ask,
 * but answers none of them: it counts QUESTION_INDEX_WEIGHT of its score, so
 * it no longer takes the place (and the neighbours) of the passage that
 * answers. The cached result is not changed in place.
 */
function withoutQuestionIndexes(search: RankedSearch): RankedSearch {
  if (!search.hits.some((h) => isQuestionIndex(h.content))) return search;
  const hits = search.hits.map((h) =>
    isQuestionIndex(h.content) ? { ...h, score: h.score * QUESTION_INDEX_WEIGHT } : h
  );
  return { ...search, hits: hits.sort((a, b) => b.score - a.score || a.id - b.id) };
}

const QUESTION_ITEM = /^(?:[-*•]|\d+[.)])\s+.{1,160}\?$/u;

/** At least three lines, and most of them, are list items that are questions. */
export function isQuestionIndex(text: string): boolean {
  // Most chunks hold fewer than three question marks: no need to split them.
  let marks = 0;
  for (let at = text.indexOf("?"); at >= 0 && marks < 3; at = text.indexOf("?", at + 1)) marks++;
  if (marks < 3) return false;
  const lines = text.split("\n").map((l) => l.trim()).filter(Boolean);
  const items = lines.filter((l) => QUESTION_ITEM.test(l)).length;
  return items >= 3 && items >= lines.length * 0.6;
}

/**
 * Stemming merges forms ("backed" and "back"): a chunk that holds the word as
 * the visitor wrote it gains a little over one that only shares the stem.
 */
function exactFormBonus(search: RankedSearch): ChunkHit[] {
  const exact = search.terms.filter((t) => t.sim === 1);
  if (!exact.length) return search.hits;
  const words = exact.map((t) => ({ idf: t.idf, word: t.word }));
  return search.hits.map((h) => {
    const text = `${h.title}\n${h.content}`.toLowerCase();
    const bonus = words.reduce((sum, w) => sum + (holdsWord(text, w.word) ? w.idf : 0), 0);
    return { ...h, score: h.score + EXACT_BONUS * bonus };
  }).sort((a, b) => b.score - a.score || a.id - b.id);
}

const WORD_CHARACTER = /[\p{L}\p{N}]/u;

/**
 * Whether `word` occurs in `text` as a whole word. indexOf and a look at the
 * two neighbouring characters: a regular expression with Unicode lookbehind
 * cost 3 ms per question over 40 chunks.
 */
function holdsWord(text: string, word: string): boolean {
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
    const before = at > 0 ? text[at - 1]! : "";
    const after = text[at + word.length] ?? "";
    if (!WORD_CHARACTER.test(before) && !WORD_CHARACTER.test(after)) return true;
  }
  return false;
}

async function vectorCandidates(
  deps: RetrieveDeps,
  input: {
    workspaceId: number;
    bot: Pick<ChatbotRow, "id">;
    query: string;
    provider?: ProviderClient | null | Promise<ProviderClient | null>;
  },
  botHasEmbeddings: Promise<boolean>,
): Promise<VectorSearch> {
  const provider = await input.provider;
  const model = provider?.info.embeddingModel;
  if (!provider || !model || !await botHasEmbeddings) return NO_VECTORS;
  try {
    const [embedding] = await embedTexts(provider.client, model, [input.query]);
    if (!embedding) return NO_VECTORS;
    return await searchChunksVector(deps.sql, input.workspaceId, input.bot.id, {
      embedding,
      limit: CANDIDATES,
      minSimilarity: MIN_SIMILARITY,
      neighboursOf: NEIGHBOURS_OF,
    });
  } catch (err) {
    // The answer can still come from full-text; the provider error shows up in the chat call.
    deps.log.warn("query embedding failed; full-text only", { err: String(err) });
    return NO_VECTORS;
  }
}

type VectorSearch = Pick<RankedSearch, "hits" | "near" | "nearOf">;
const NO_VECTORS: VectorSearch = { hits: [], near: [], nearOf: [] };

/**
 * Score-aware fusion of the full-text list (BM25 scores) and the vector list
 * (cosine similarities): full-text relative to its best hit (0..1) plus
 * VECTOR_WEIGHT times the similarity rescaled from MIN_SIMILARITY..1 to 0..1.
 * Chunks far below the best are dropped.
 */
export function fuse(text: ChunkHit[], vector: ChunkHit[]): RetrievedChunk[] {
  const byId = new Map<number, RetrievedChunk>();
  const add = (hit: ChunkHit, score: number) => {
    const seen = byId.get(hit.id);
    if (seen) seen.score += score;
    else {
      byId.set(hit.id, {
        id: hit.id,
        sourceId: hit.source_id,
        sourceTitle: hit.source_title,
        ordinal: hit.ordinal,
        title: hit.title,
        url: hit.url,
        content: hit.content,
        score,
      });
    }
  };
  const best = Math.max(0, ...text.map((h) => h.score));
  if (best > 0) { for (const h of text) add(h, h.score / best); }
  for (const h of vector) {
    add(h, VECTOR_WEIGHT * Math.max(0, (h.score - MIN_SIMILARITY) / (1 - MIN_SIMILARITY)));
  }
  const all = [...byId.values()];
  const top = Math.max(0, ...all.map((c) => c.score));
  return all.filter((c) => c.score > 0 && c.score >= top * MIN_RELATIVE_SCORE)
    .sort((a, b) => b.score - a.score || a.id - b.id);
}

/**
 * Reorder so that no source takes the whole prompt: each chunk's score is
 * discounted by SOURCE_DECAY for every chunk of its source already placed
 * before it. Scores keep their fused values.
 */
export function diversify(chunks: RetrievedChunk[]): RetrievedChunk[] {
  const left = [...chunks];
  const placed = new Map<number, number>();
  const out: RetrievedChunk[] = [];
  while (left.length) {
    let bestAt = 0;
    let bestScore = -Infinity;
    left.forEach((c, i) => {
      const s = c.score * SOURCE_DECAY ** (placed.get(c.sourceId) ?? 0);
      if (s > bestScore) [bestAt, bestScore] = [i, s];
    });
    const [chosen] = left.splice(bestAt, 1);
    out.push(chosen!);
    placed.set(chosen!.sourceId, (placed.get(chosen!.sourceId) ?? 0) + 1);
  }
  return out;
}
