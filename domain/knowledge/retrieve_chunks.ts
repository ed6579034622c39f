/**
 * Hybrid retrieval: full-text and vector candidates fused by reciprocal rank
 * (RRF, k = 60), so a chunk both searches like rises to the top. Without
 * pgvector, embeddings or a provider that offers them, full-text alone.
 * Unrelated chunks stay out: full-text needs a shared lexeme, vector search a
 * minimum cosine similarity.
 */
import type { AppDeps } from "../../app/deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import {
  type AllWordsTier,
  type ChunkHit,
  searchChunksAllWords,
  searchChunksFullText,
  searchChunksVector,
} from "../../db/knowledge.ts";
import { embedTexts } from "../ai/embed_texts.ts";
import type { ProviderClient } from "../ai/provider_client.ts";

export type RetrieveDeps = Pick<AppDeps, "sql" | "log"> & { db: Pick<AppDeps["db"], "vector"> };

export interface RetrievedChunk {
  id: number;
  sourceId: number;
  sourceTitle: string;
  title: string;
  url: string | null;
  content: string;
  /** Fused RRF score: higher is better. */
  score: number;
}

const RRF_K = 60;
const CANDIDATES = 20;
/** Matches ranked per full-text tier (bounds the cost on large knowledge bases). */
const TIER_CANDIDATES = 100;
/** Question words considered; more add little and multiply the pairs. */
const MAX_LEXEMES = 8;
/** Below this cosine similarity a chunk is treated as unrelated. */
export const MIN_SIMILARITY = 0.35;

export async function retrieveChunks(
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
  },
): Promise<RetrievedChunk[]> {
  const limit = input.limit ?? 6;
  // Whether the bot has embedded knowledge comes with the first full-text
  // tier (one round trip, not two); only then is the question embedded.
  const withVector = deps.db.vector && input.provider !== undefined && input.provider !== null;
  const first = searchChunksAllWords(deps.sql, input.workspaceId, input.bot.id, {
    language: input.bot.language,
    text: input.query,
    maxLexemes: MAX_LEXEMES,
    limit: CANDIDATES,
    candidates: TIER_CANDIDATES,
    withEmbeddedFlag: withVector,
  });
  const [text, vector] = await Promise.all([
    fullTextCandidates(deps, input, limit, first),
    withVector ? vectorCandidates(deps, input, first.then((f) => f.botHasEmbeddings)) : [],
  ]);
  return fuse([text, vector]).slice(0, limit);
}

/**
 * Full-text in tiers, most selective first: chunks holding every word of the
 * question, then any two of its words, then any one. Each tier ranks at most
 * TIER_CANDIDATES matches, so a common word cannot make a question rank a
 * whole 100,000-chunk knowledge base; a weaker tier runs only while fewer
 * than `enough` chunks were found.
 */
async function fullTextCandidates(
  deps: RetrieveDeps,
  input: { workspaceId: number; bot: Pick<ChatbotRow, "id" | "language">; query: string },
  enough: number,
  allWords: Promise<AllWordsTier>,
): Promise<ChunkHit[]> {
  // The all-words tier came back with the question's lexemes in one round trip.
  const { hits, lexemes } = await allWords;
  if (hits.length >= enough || lexemes.length < 2) return hits;
  const quoted = lexemes.map((l) => `'${l.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`);
  const tiers: string[] = [];
  if (quoted.length > 2) tiers.push(pairs(quoted).join(" | "));
  tiers.push(quoted.join(" | "));
  for (const tsquery of tiers) {
    const found = await searchChunksFullText(deps.sql, input.workspaceId, input.bot.id, {
      tsquery,
      limit: CANDIDATES - hits.length,
      candidates: TIER_CANDIDATES,
      excludeIds: hits.map((h) => h.id),
    });
    hits.push(...found);
    // Enough strong matches: weaker tiers would only add noise (and cost).
    if (hits.length >= enough) break;
  }
  return hits;
}

function pairs(terms: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < terms.length; i++) {
    for (let j = i + 1; j < terms.length; j++) out.push(`(${terms[i]} & ${terms[j]})`);
  }
  return out;
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
): Promise<ChunkHit[]> {
  const provider = await input.provider;
  const model = provider?.info.embeddingModel;
  if (!provider || !model || !await botHasEmbeddings) return [];
  try {
    const [embedding] = await embedTexts(provider.client, model, [input.query]);
    if (!embedding) return [];
    return await searchChunksVector(deps.sql, input.workspaceId, input.bot.id, {
      embedding,
      limit: CANDIDATES,
      minSimilarity: MIN_SIMILARITY,
    });
  } catch (err) {
    // The answer can still come from full-text; the provider error shows up in the chat call.
    deps.log.warn("query embedding failed; full-text only", { err: String(err) });
    return [];
  }
}

/** Reciprocal rank fusion of ranked lists. */
export function fuse(lists: ChunkHit[][]): RetrievedChunk[] {
  const byId = new Map<number, RetrievedChunk>();
  for (const list of lists) {
    list.forEach((hit, rank) => {
      const add = 1 / (RRF_K + rank + 1);
      const seen = byId.get(hit.id);
      if (seen) seen.score += add;
      else {
        byId.set(hit.id, {
          id: hit.id,
          sourceId: hit.source_id,
          sourceTitle: hit.source_title,
          title: hit.title,
          url: hit.url,
          content: hit.content,
          score: add,
        });
      }
    });
  }
  return [...byId.values()].sort((a, b) => b.score - a.score || a.id - b.id);
}
