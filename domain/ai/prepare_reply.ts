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

export interface PreparedReply {
  provider: ProviderClient;
  retrieved: RetrievedChunk[];
}

export interface PrepareInput {
  workspaceId: number;
  bot: ChatbotRow;
  query: string;
  /** The stored provider key, when read with the bot (null: none); else looked up. */
  providerCiphertext?: string | null;
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
  const [client, chunks] = await Promise.all([provider, retrieved]);
  return { provider: client, retrieved: chunks };
}

/** Start preparing now; if nobody awaits it (the turn failed first), its failure stays silent. */
export function startPreparingReply(deps: AppDeps, input: PrepareInput): Promise<PreparedReply> {
  const prepared = prepareReply(deps, input);
  prepared.catch(() => {});
  return prepared;
}
