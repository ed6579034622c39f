/**
 * Index one knowledge source: chunk its text, embed the chunks when the bot's
 * provider offers embeddings and pgvector is on, then store chunks and their
 * full-text vectors in one transaction and mark the source ready with a true
 * count. A provider without an embeddings API (EmbeddingsUnsupported) is not a
 * failure: the source is indexed for full-text search only and is ready. A
 * transient embeddings failure (5xx, time-out, rate limit) marks it `failed`
 * with the reason and rethrows, so the record stays for a retry (v1: the
 * 422 with id and status; the portal's job: its retries).
 */
import type { AppDeps } from "../deps.ts";
import {
  findSource,
  type KnowledgeSourceRow,
  type NewChunk,
  replaceChunks,
  setSourceStatus,
  sourceBotProvider,
} from "../../db/knowledge.ts";
import { chunkText, chunkTitle } from "./chunk_text.ts";
import { NotFound } from "../errors.ts";
import { EmbeddingsUnsupported, embedTexts } from "../ai/embed_texts.ts";
import { findProviderClient } from "../ai/provider_client.ts";

/**
 * What training needs. `config` and `db` are optional so the seeder (which
 * runs before the AI layer matters) can train full-text only.
 */
export type TrainDeps = Pick<AppDeps, "sql" | "appKey"> & {
  config?: Pick<AppDeps["config"], "aiBaseUrl" | "aiTimeoutMs" | "aiApiKey">;
  db?: Pick<AppDeps["db"], "vector">;
};

export async function trainSource(
  deps: TrainDeps,
  workspaceId: number,
  sourceId: number,
  language = "english",
): Promise<KnowledgeSourceRow> {
  const source = await findSource(deps.sql, workspaceId, sourceId);
  if (!source) throw new NotFound("Knowledge source not found.");
  await setSourceStatus(deps.sql, workspaceId, source.id, "processing");
  try {
    const chunks = chunksOf(source);
    const withVectors = await embedChunks(deps, source, chunks);
    await deps.sql.begin(async (tx) => {
      await replaceChunks(tx, workspaceId, {
        id: source.id,
        chatbotId: source.chatbot_id,
        language,
        withVectors,
      }, chunks);
      await setSourceStatus(tx, workspaceId, source.id, "ready", {
        chunkCount: chunks.length,
        embedded: withVectors,
      });
    });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    await setSourceStatus(deps.sql, workspaceId, source.id, "failed", { error: reason });
    throw err;
  }
  return (await findSource(deps.sql, workspaceId, sourceId))!;
}

/** Adds `embedding` to each chunk when possible; true when the vectors should be stored. */
async function embedChunks(
  deps: TrainDeps,
  source: KnowledgeSourceRow,
  chunks: NewChunk[],
): Promise<boolean> {
  if (!deps.db?.vector || !deps.config || chunks.length === 0) return false;
  const code = await sourceBotProvider(deps.sql, source.workspace_id, source.id);
  if (!code) return false;
  const provider = await findProviderClient(
    { sql: deps.sql, appKey: deps.appKey, config: deps.config },
    source.workspace_id,
    code,
  );
  const model = provider?.info.embeddingModel;
  if (!provider || !model) return false; // full-text only: no key or no embeddings offered
  let vectors: number[][];
  try {
    vectors = await embedTexts(
      provider.client,
      model,
      chunks.map((c) => `${c.title}\n${c.content}`),
    );
  } catch (err) {
    if (err instanceof EmbeddingsUnsupported) return false; // full-text only, and ready
    throw err;
  }
  chunks.forEach((c, i) => (c.embedding = vectors[i] ?? null));
  return true;
}

function chunksOf(source: KnowledgeSourceRow): NewChunk[] {
  if (source.type === "qa" && source.question === null && source.content) {
    return csvPairChunks(source);
  }
  if (source.type === "qa") {
    // The question rides on every chunk so a long answer stays findable by it.
    const question = source.question ?? source.title;
    return chunkText(source.answer ?? "").map((c, i) => ({
      ordinal: i,
      title: source.title,
      url: null,
      content: `Q: ${question}\nA: ${c.content}`,
    }));
  }
  return chunkText(source.content ?? "").map((c, i) => ({
    ordinal: i,
    title: chunkTitle(source.title, c.path),
    url: source.source_url,
    content: c.content,
  }));
}

/**
 * A Q&A CSV's pairs (stored as JSON by files/read_uploaded_file.ts): each
 * question titles its answer's chunks, searched with them and shown with them.
 */
function csvPairChunks(source: KnowledgeSourceRow): NewChunk[] {
  const pairs = JSON.parse(source.content!) as { question: string; answer: string }[];
  const chunks: NewChunk[] = [];
  for (const { question, answer } of pairs) {
    for (const c of chunkText(answer)) {
      chunks.push({
        ordinal: chunks.length,
        title: chunkTitle(source.title, [question]),
        url: null,
        content: `Q: ${question}\nA: ${c.content}`,
      });
    }
  }
  return chunks;
}
