/**
 * The part of an AI reply that does not depend on the stored turn: the
 * provider client (key looked up and decrypted) and the knowledge retrieved
 * for the question. Callers start it beside the visitor-turn transaction, so
 * the commit, the query embedding and the searches overlap instead of adding
 * up before the first token (docs/BENCHMARKS.md, widget streaming). When the
 * turn is refused or a human owns the conversation, the work is dropped: at
 * most one query embedding is spent, and only for bots with embedded sources.
 */
import type { AppDeps } from "../../app/deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import { retrieveChunks, type RetrievedChunk } from "../knowledge/retrieve_chunks.ts";
import { openProviderClient, type ProviderClient } from "./provider_client.ts";

export interface PreparedReply {
  provider: ProviderClient;
  retrieved: RetrievedChunk[];
}

export async function prepareReply(
  deps: AppDeps,
  input: { workspaceId: number; bot: ChatbotRow; query: string },
): Promise<PreparedReply> {
  const provider = await openProviderClient(deps, input.workspaceId, input.bot.provider);
  const retrieved = await retrieveChunks(deps, { ...input, provider });
  return { provider, retrieved };
}

/** Start preparing now; if nobody awaits it (the turn failed first), its failure stays silent. */
export function startPreparingReply(
  deps: AppDeps,
  input: { workspaceId: number; bot: ChatbotRow; query: string },
): Promise<PreparedReply> {
  const prepared = prepareReply(deps, input);
  prepared.catch(() => {});
  return prepared;
}
