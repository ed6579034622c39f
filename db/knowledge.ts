/** knowledge_sources and knowledge_chunks: what a bot knows and its search index. */
import type { Executor } from "./client.ts";

export interface KnowledgeSourceRow {
  id: number;
  workspace_id: number;
  chatbot_id: number;
  parent_id: number | null;
  type: "text" | "qa" | "url" | "page";
  title: string;
  content: string | null;
  question: string | null;
  answer: string | null;
  source_url: string | null;
  content_hash: string | null;
  status: string;
  error: string | null;
  chunk_count: number;
  pages_found: number;
  pages_indexed: number;
  /** Its chunks carry embeddings (migration 0004). */
  embedded?: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface NewSource {
  chatbotId: number;
  parentId?: number | null;
  type: KnowledgeSourceRow["type"];
  title: string;
  content?: string | null;
  question?: string | null;
  answer?: string | null;
  sourceUrl?: string | null;
  contentHash?: string | null;
  status?: string;
}

export async function insertSource(
  sql: Executor,
  workspaceId: number,
  s: NewSource,
): Promise<KnowledgeSourceRow> {
  const [row] = await sql<KnowledgeSourceRow[]>`
    INSERT INTO knowledge_sources (workspace_id, chatbot_id, parent_id, type, title, content,
      question, answer, source_url, content_hash, status)
    VALUES (${workspaceId}, ${s.chatbotId}, ${s.parentId ?? null}, ${s.type}, ${s.title},
      ${s.content ?? null}, ${s.question ?? null}, ${s.answer ?? null}, ${s.sourceUrl ?? null},
      ${s.contentHash ?? null}, ${s.status ?? "pending"})
    RETURNING *`;
  return row!;
}

export async function findSource(
  sql: Executor,
  workspaceId: number,
  id: number,
): Promise<KnowledgeSourceRow | null> {
  const [row] = await sql<KnowledgeSourceRow[]>`
    SELECT * FROM knowledge_sources WHERE workspace_id = ${workspaceId} AND id = ${id}`;
  return row ?? null;
}

/** A top-level source of a bot with this title and content hash (retraining, seeding). */
export async function findSourceByHash(
  sql: Executor,
  workspaceId: number,
  chatbotId: number,
  title: string,
  contentHash: string,
): Promise<KnowledgeSourceRow | null> {
  const [row] = await sql<KnowledgeSourceRow[]>`
    SELECT * FROM knowledge_sources
     WHERE workspace_id = ${workspaceId} AND chatbot_id = ${chatbotId} AND parent_id IS NULL
       AND title = ${title} AND content_hash = ${contentHash}
     ORDER BY id LIMIT 1`;
  return row ?? null;
}

export async function setSourceStatus(
  sql: Executor,
  workspaceId: number,
  id: number,
  status: string,
  fields: { chunkCount?: number; error?: string | null; embedded?: boolean } = {},
): Promise<void> {
  await sql`
    UPDATE knowledge_sources
       SET status = ${status}, updated_at = now(),
           chunk_count = COALESCE(${fields.chunkCount ?? null}, chunk_count),
           embedded = COALESCE(${fields.embedded ?? null}, embedded),
           error = ${fields.error ?? null}
     WHERE workspace_id = ${workspaceId} AND id = ${id}`;
}

export interface NewChunk {
  ordinal: number;
  title: string;
  url: string | null;
  content: string;
  /** Present only when the provider embedded the chunk and pgvector is enabled. */
  embedding?: number[] | null;
}

/** pgvector's text form of a vector. */
function vectorLiteral(v: number[] | null | undefined): string {
  return v && v.length ? `[${v.join(",")}]` : "";
}

/**
 * Replace a source's chunks; the caller wraps it in a transaction. `withVectors`
 * writes the embedding column, which exists only when pgvector is enabled.
 */
export async function replaceChunks(
  sql: Executor,
  workspaceId: number,
  source: { id: number; chatbotId: number; language: string; withVectors?: boolean },
  chunks: NewChunk[],
): Promise<void> {
  await sql`DELETE FROM knowledge_chunks WHERE workspace_id = ${workspaceId} AND source_id = ${source.id}`;
  if (chunks.length === 0) return;
  const BATCH = 500;
  for (let i = 0; i < chunks.length; i += BATCH) {
    const part = chunks.slice(i, i + BATCH);
    const cols = {
      ordinal: sql.array(part.map((c) => c.ordinal)),
      title: sql.array(part.map((c) => c.title)),
      url: sql.array(part.map((c) => c.url ?? "")),
      content: sql.array(part.map((c) => c.content)),
    };
    if (source.withVectors) {
      await sql`
        INSERT INTO knowledge_chunks (workspace_id, chatbot_id, source_id, ordinal, title, url,
                                      content, tsv, embedding)
        SELECT ${workspaceId}, ${source.chatbotId}, ${source.id}, c.ordinal, c.title,
               NULLIF(c.url, ''), c.content,
               setweight(to_tsvector(${source.language}::regconfig, c.title), 'A') ||
               to_tsvector(${source.language}::regconfig, c.content),
               NULLIF(c.embedding, '')::vector
          FROM unnest(${cols.ordinal}::int[], ${cols.title}::text[], ${cols.url}::text[],
                      ${cols.content}::text[],
                      ${sql.array(part.map((c) => vectorLiteral(c.embedding)))}::text[])
               AS c(ordinal, title, url, content, embedding)`;
    } else {
      await sql`
        INSERT INTO knowledge_chunks (workspace_id, chatbot_id, source_id, ordinal, title, url,
                                      content, tsv)
        SELECT ${workspaceId}, ${source.chatbotId}, ${source.id}, c.ordinal, c.title,
               NULLIF(c.url, ''), c.content,
               setweight(to_tsvector(${source.language}::regconfig, c.title), 'A') ||
               to_tsvector(${source.language}::regconfig, c.content)
          FROM unnest(${cols.ordinal}::int[], ${cols.title}::text[], ${cols.url}::text[],
                      ${cols.content}::text[])
               AS c(ordinal, title, url, content)`;
    }
  }
}

export interface ChunkHit {
  id: number;
  source_id: number;
  /** Title of the chunk's source (the document or crawled page), for citations. */
  source_title: string;
  title: string;
  url: string | null;
  content: string;
  score: number;
}

/**
 * Full-text matches of one tsquery (given as text of quoted lexemes), ranked
 * by cover density with titles weighted. At most `candidates` matching rows
 * are ranked, which bounds the cost on a large knowledge base whatever the
 * question; callers ask the selective query first (see retrieve_chunks.ts).
 */
export async function searchChunksFullText(
  sql: Executor,
  workspaceId: number,
  chatbotId: number,
  query: { tsquery: string; limit: number; candidates: number; excludeIds?: number[] },
): Promise<ChunkHit[]> {
  const exclude = query.excludeIds?.length ? query.excludeIds : [0];
  return await sql<ChunkHit[]>`
    WITH q AS (SELECT ${query.tsquery}::tsquery AS tsq),
    cand AS MATERIALIZED (
      SELECT k.id, k.source_id, k.title, k.url, k.content, k.tsv
        FROM knowledge_chunks k, q
       WHERE k.tsv @@ q.tsq AND k.workspace_id = ${workspaceId} AND k.chatbot_id = ${chatbotId}
         AND k.id <> ALL(${sql.array(exclude)}::bigint[])
       LIMIT ${query.candidates})
    SELECT c.id, c.source_id, c.title, c.url, c.content,
           ts_rank_cd(c.tsv, q.tsq)::float8 AS score,
           (SELECT s.title FROM knowledge_sources s WHERE s.id = c.source_id) AS source_title
      FROM cand c, q
     ORDER BY score DESC, c.id
     LIMIT ${query.limit}`;
}

/**
 * The first, most selective full-text tier in one round trip: the question's
 * lexemes under the bot's text-search configuration (stop words dropped, at
 * most `maxLexemes`) and the
 * chunks holding all of them, ranked as `searchChunksFullText` ranks. The
 * lexemes come back for the weaker tiers. One statement instead of two
 * matters on the embedded database, where every round trip queues on one
 * connection before the first token (docs/BENCHMARKS.md).
 */
export interface AllWordsTier {
  lexemes: string[];
  hits: ChunkHit[];
  /** Whether the bot has ready embedded sources (asked only `withEmbeddedFlag`). */
  botHasEmbeddings: boolean;
}

export async function searchChunksAllWords(
  sql: Executor,
  workspaceId: number,
  chatbotId: number,
  query: {
    language: string;
    text: string;
    maxLexemes: number;
    limit: number;
    candidates: number;
    withEmbeddedFlag?: boolean;
  },
): Promise<AllWordsTier> {
  const embedded = query.withEmbeddedFlag
    ? sql`EXISTS (SELECT 1 FROM knowledge_sources
                   WHERE workspace_id = ${workspaceId} AND chatbot_id = ${chatbotId}
                     AND embedded AND status = 'ready')`
    : sql`false`;
  // Each lexeme quoted for tsquery as retrieve_chunks.ts quotes them: ' and \ doubled.
  const [row] = await sql<{ lex: string[] | null; hits: ChunkHit[]; embedded: boolean }[]>`
    WITH lx AS (
      SELECT (tsvector_to_array(to_tsvector(${query.language}::regconfig, ${query.text})))
             [1:${query.maxLexemes}] AS lex),
    q AS (
      SELECT lex, (SELECT string_agg(chr(39) || replace(replace(l, chr(92), chr(92) || chr(92)),
                                      chr(39), chr(39) || chr(39)) || chr(39), ' & ')
                     FROM unnest(lex) l)::tsquery AS tsq
        FROM lx),
    cand AS MATERIALIZED (
      SELECT k.id, k.source_id, k.title, k.url, k.content, k.tsv
        FROM knowledge_chunks k, q
       WHERE k.tsv @@ q.tsq AND k.workspace_id = ${workspaceId} AND k.chatbot_id = ${chatbotId}
       LIMIT ${query.candidates}),
    hits AS (
      SELECT c.id, c.source_id, c.title, c.url, c.content,
             ts_rank_cd(c.tsv, q.tsq)::float8 AS score,
             (SELECT s.title FROM knowledge_sources s WHERE s.id = c.source_id) AS source_title
        FROM cand c, q
       ORDER BY score DESC, c.id
       LIMIT ${query.limit})
    SELECT (SELECT lex FROM q) AS lex,
           COALESCE((SELECT json_agg(h ORDER BY h.score DESC, h.id) FROM hits h), '[]') AS hits,
           ${embedded} AS embedded`;
  return {
    lexemes: row?.lex ?? [],
    hits: row?.hits ?? [],
    botHasEmbeddings: row?.embedded ?? false,
  };
}

/** Vector candidates by cosine similarity, above `minSimilarity`. Needs pgvector. */
export async function searchChunksVector(
  sql: Executor,
  workspaceId: number,
  chatbotId: number,
  query: { embedding: number[]; limit: number; minSimilarity: number },
): Promise<ChunkHit[]> {
  const vec = vectorLiteral(query.embedding);
  return await sql<ChunkHit[]>`
    SELECT id, source_id, title, url, content, score,
           (SELECT src.title FROM knowledge_sources src WHERE src.id = s.source_id)
             AS source_title
      FROM (
      SELECT k.id, k.source_id, k.title, k.url, k.content,
             (1 - (k.embedding <=> ${vec}::vector))::float8 AS score
        FROM knowledge_chunks k
       WHERE k.workspace_id = ${workspaceId} AND k.chatbot_id = ${chatbotId}
         AND k.embedding IS NOT NULL AND vector_dims(k.embedding) = ${query.embedding.length}
    ) s
     WHERE score >= ${query.minSimilarity}
     ORDER BY score DESC, id
     LIMIT ${query.limit}`;
}

/** The AI provider code of the bot a source belongs to (which embeddings to use). */
export async function sourceBotProvider(
  sql: Executor,
  workspaceId: number,
  sourceId: number,
): Promise<string | null> {
  const [row] = await sql<{ provider: string }[]>`
    SELECT b.provider FROM knowledge_sources s JOIN chatbots b ON b.id = s.chatbot_id
     WHERE s.workspace_id = ${workspaceId} AND s.id = ${sourceId}`;
  return row?.provider ?? null;
}
