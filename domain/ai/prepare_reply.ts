/**
 * The part of an AI reply that does not depend on the stored turn: the
 * provider client (key looked up and decrypted) and the knowledge retrieved
 * for the question. Callers start it beside the visitor-turn transaction, so
 * the commit, the query embedding and the searches overlap instead of adding
 * up before the first token (docs/BENCHMARKS.md, widget streaming). When the
 * turn is refused or a human owns the conversation, the work is dropped: at
 * most one query embedding is spent, and only for bots with embedded sources.
 */
import type { AppDeps } from "../deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import { retrieveChunks, type RetrievedChunk } from "../knowledge/retrieve_chunks.ts";
import { openProviderClient, type ProviderClient } from "./provider_client.ts";
import { type RecommendedProduct, recommendProducts } from "../catalogue/recommend_products.ts";

export interface PreparedReply {
  provider: ProviderClient;
  retrieved: RetrievedChunk[];
  /** Products the reply shows (the widget's `recommendations`); empty unless asked for. */
  products: RecommendedProduct[];
}

export interface PrepareInput {
  workspaceId: number;
  bot: ChatbotRow;
  query: string;
  /** The stored provider key, when read with the bot (null: none); else looked up. */
  providerCiphertext?: string | null;
  /**
   * Decide the products to show (widget streams only; the bot's recommend_mode
   * may still say `off`). Searched beside the knowledge, so the prompt can name them.
   */
  recommend?: boolean;

  /** The bot's knowledge generation, when read with the bot (see retrieve_chunks.ts). */
  knowledgeGeneration?: number | null;
}

export async function prepareReply(deps: AppDeps, input: PrepareInput): Promise<PreparedReply> {
  const provider = openProviderClient(
    deps,
    input.workspaceId,
    input.bot.provider,
    input.providerCiphertext,
  );
  // The full-text search needs no provider: it starts now, and only the
  // query embedding waits for the client (a missing key fails below instead).
  const retrieved = retrieveChunks(deps, { ...input, provider: provider.catch(() => null) });
  const products = input.recommend
    ? recommendProducts(deps, { ...input, provider: provider.catch(() => null) }).catch((err) => {
      // Recommendations are a bonus: the answer goes on without them.
      deps.log.warn("product recommendations failed", { err: String(err) });
      return [];
    })
    : [];
  const [client, chunks, shown] = await Promise.all([provider, retrieved, products]);
  return { provider: client, retrieved: chunks, products: shown };
}

/** Start preparing now; if nobody awaits it (the turn failed first), its failure stays silent. */
export function startPreparingReply(deps: AppDeps, input: PrepareInput): Promise<PreparedReply> {
  const prepared = prepareReply(deps, input);
  prepared.catch(() => {});
  return prepared;
}
