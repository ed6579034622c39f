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
  /** Found pages that could not be fetched or used, and those left out on purpose (0190). */
  pages_failed: number;
  pages_skipped: number;
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
 * Replace a source's chunks; the caller wraps it in a transaction. Slashes are
 * indexed as spaces: the parser would read "/widget/{key}/heartbeat" as the
 * lexemes "/widget" and "/heartbeat", which no question's words ever match.
 * The chunk's title (document title and heading path) is indexed with weight
 * A, which ranking boosts. `withVectors` writes the embedding column, which
 * exists only when pgvector is enabled.
 */
export async function replaceChunks(
  sql: Executor,
  workspaceId: number,
  source: { id: number; chatbotId: number; language: string; withVectors?: boolean },
  chunks: NewChunk[],
): Promise<void> {
  await sql`DELETE FROM knowledge_chunks WHERE workspace_id = ${workspaceId} AND source_id = ${source.id}`;
  if (chunks.length === 0) return;
  // Large batches: each statement also updates the vocabulary once (migration 0080
  // triggers), so fewer statements mean fewer upserts of the same lexemes.
  const BATCH = 2000;
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
               knowledge_tsv(${source.language}::regconfig, c.title, c.content),
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
               knowledge_tsv(${source.language}::regconfig, c.title, c.content)
          FROM unnest(${cols.ordinal}::int[], ${cols.title}::text[], ${cols.url}::text[],
                      ${cols.content}::text[])
               AS c(ordinal, title, url, content)`;
    }
  }
}

export interface ChunkHit {
  id: number;
  source_id: number;
  /** The chunk's place in its source (0, 1, …): chunks one apart are neighbours in the text. */
  ordinal: number;
  /** Title of the chunk's source (the document or crawled page), for citations. */
  source_title: string;
  title: string;
  url: string | null;
  content: string;
  score: number;
}

/** A question word as ranking used it: its lexeme, rarity and match certainty. */
export interface RankedTerm {
  word: string;
  lexeme: string;
  /** BM25 inverse document frequency over the bot's chunks: rarer is higher. */
  idf: number;
  /** 1 for a word the vocabulary knows; the trigram similarity of a corrected one. */
  sim: number;
}

export interface RankedSearch {
  hits: ChunkHit[];
  terms: RankedTerm[];
  /** Whether the bot has ready embedded sources (asked only `withEmbeddedFlag`). */
  botHasEmbeddings: boolean;
  /**
   * The chunks just before and after the best `neighboursOf` hits (same
   * source, ordinal ±1), except those among `hits` (not sent twice).
   */
  near: Omit<ChunkHit, "score">[];
  /** The hits whose neighbours were looked up (the best `neighboursOf`): `near` or `hits` holds those that exist. */
  nearOf: number[];
}

/** BM25's term-frequency saturation and length normalisation (the usual values). */
const K1 = 1.2;
const B = 0.75;

/**
 * The statement of `searchChunksRanked`: $1 words, $2 language, $3 bot,
 * $4 workspace, $5 candidates per term, $6 minimum trigram similarity, $7 title
 * boost, $8 limit, $9 whether to ask if the bot has embedded sources, $10 and
 * $11 related words and the question word each stands for, $12 their weight,
 * $13 the question words a dictionary knows (never corrected by trigrams), $14
 * how many of the best hits bring their neighbours.
 */
const RANKED_SEARCH = `
    WITH qw AS (
      SELECT w.word, l.lex
        FROM unnest($1::text[]) AS w(word),
             unnest(tsvector_to_array(to_tsvector($2::regconfig, w.word))) AS l(lex)),
    st AS (
      SELECT chunks::float8 AS n, greatest(lexemes::float8 / chunks, 1) AS avgdl
        FROM knowledge_stats WHERE chatbot_id = $3 AND chunks > 0),
    -- Vocabulary lookups one key at a time (LIMIT 1 keeps them nested loops):
    -- a hash join would read the bot's whole vocabulary for a few words.
    known AS (
      SELECT q.word, t.lexeme, t.df, 1::float8 AS sim
        FROM qw q CROSS JOIN LATERAL (
          SELECT k.lexeme, k.df FROM knowledge_terms k
           WHERE k.chatbot_id = $3 AND k.lexeme = q.lex LIMIT 1) t),
    unknown AS MATERIALIZED (
      SELECT q.word, q.lex FROM qw q
       WHERE NOT EXISTS (SELECT 1 FROM known k WHERE k.word = q.word)),
    related AS (
      SELECT r.of AS word, t.lexeme, t.df, $12::float8 AS sim
        FROM unnest($10::text[], $11::text[]) AS r(rel, of)
        JOIN (SELECT DISTINCT word FROM unknown) u ON u.word = r.of
        CROSS JOIN LATERAL unnest(tsvector_to_array(to_tsvector($2::regconfig, r.rel))) AS l(lex)
        CROSS JOIN LATERAL (
          SELECT k.lexeme, k.df FROM knowledge_terms k
           WHERE k.chatbot_id = $3 AND k.lexeme = l.lex LIMIT 1) t),
    fuzzy AS (
      SELECT q.word, m.lexeme, m.df, m.sim
        FROM (SELECT * FROM unknown
               WHERE length(word) >= 4 AND NOT (word = ANY($13::text[]))) q CROSS JOIN LATERAL (
          SELECT t.lexeme, t.df,
                 greatest(similarity(t.lexeme, q.lex), similarity(t.lexeme, q.word))::float8 AS sim
            FROM knowledge_terms t
           WHERE (t.lexeme % q.lex OR t.lexeme % q.word) AND t.chatbot_id = $3
           ORDER BY sim DESC, t.df DESC, t.lexeme
           LIMIT 1) m
       WHERE m.sim >= $6::float8),
    terms AS MATERIALIZED (
      SELECT DISTINCT ON (x.lexeme) x.word, x.lexeme, x.sim, x.df, qq.quoted,
             ln(1 + (st.n - x.df + 0.5) / (x.df + 0.5)) AS idf,
             qq.quoted::tsquery AS tsq, (qq.quoted || ':A')::tsquery AS tsq_title
        FROM (SELECT * FROM known UNION ALL SELECT * FROM fuzzy UNION ALL SELECT * FROM related) x
             CROSS JOIN st,
             LATERAL (SELECT chr(39) || replace(replace(x.lexeme, chr(92), chr(92) || chr(92)),
                                                chr(39), chr(39) || chr(39)) || chr(39) AS quoted) qq
       ORDER BY x.lexeme, x.sim DESC),
    ranked AS (SELECT t.*, row_number() OVER (ORDER BY t.df, t.lexeme) AS rk FROM terms t),
    sources AS (
      SELECT string_agg(quoted, ' | ')::tsquery AS tsq, count(*) * $5::int AS lim
        FROM ranked WHERE df <= $5::int HAVING count(*) > 0
      UNION ALL
      SELECT tsq, $5::int FROM ranked WHERE rk = 1 AND df > $5::int
      UNION ALL
      SELECT string_agg(quoted, ' & ')::tsquery, $5::int FROM ranked
      HAVING count(*) > 1 AND min(df) > $5::int
      UNION ALL
      SELECT string_agg(quoted, ' & ')::tsquery, $5::int FROM ranked WHERE rk <= 2
      HAVING (SELECT count(*) FROM ranked) > 2 AND min(df) > $5::int),
    -- Only ids and vectors while ranking; the text is read for the winners.
    cand AS MATERIALIZED (
      SELECT DISTINCT ON (c.id) c.*
        FROM sources t CROSS JOIN LATERAL (
          SELECT k.id, k.tsv
            FROM knowledge_chunks k
           WHERE k.tsv @@ t.tsq AND k.workspace_id = $4
             AND k.chatbot_id = $3
           LIMIT t.lim) c
       ORDER BY c.id),
    -- Each candidate's best term per question word (several related words of
    -- one word count once), gathered in one join rather than a subquery per chunk.
    matches AS (
      SELECT c.id, t.word, max(length(c.tsv)) AS len,
             max(t.idf * t.sim * CASE WHEN c.tsv @@ t.tsq_title THEN $7::float8 ELSE 1 END) AS best
        FROM cand c JOIN terms t ON c.tsv @@ t.tsq
       GROUP BY c.id, t.word),
    hits AS (
      SELECT m.id,
             (sum(m.best) * ${K1 + 1}
               / (1 + ${K1} * (${1 - B} + ${B} * max(m.len) / max(st.avgdl))))::float8 AS score
        FROM matches m CROSS JOIN st
       GROUP BY m.id
       ORDER BY score DESC, m.id
       LIMIT $8),
    -- The winners' text, read once: the hits, and the places of the best
    -- $14 whose neighbours come too (with their source's title).
    top AS MATERIALIZED (
      SELECT k.id, k.source_id, k.ordinal, k.title, k.url, k.content, hits.score,
             s.title AS source_title
        FROM hits JOIN knowledge_chunks k ON k.id = hits.id
        JOIN knowledge_sources s ON s.id = k.source_id)
    SELECT (SELECT json_agg(json_build_object('word', word, 'lexeme', lexeme, 'idf', idf,
                                              'sim', sim))
              FROM terms) AS terms,
           COALESCE((SELECT json_agg(h ORDER BY h.score DESC, h.id) FROM top h), '[]') AS hits,
           -- A neighbour that is itself a hit is not sent twice.
           COALESCE((SELECT json_agg(n)
                       FROM (SELECT k.id, k.source_id, k.ordinal, k.title, k.url, k.content,
                                    t.source_title
                               FROM (SELECT * FROM top ORDER BY score DESC, id LIMIT $14) t
                               CROSS JOIN (VALUES (-1), (1)) d(step)
                               JOIN knowledge_chunks k
                                 ON k.source_id = t.source_id AND k.ordinal = t.ordinal + d.step
                              WHERE NOT EXISTS (SELECT 1 FROM top WHERE top.id = k.id)) n),
                    '[]') AS near,
           CASE WHEN $9 THEN EXISTS (
             SELECT 1 FROM knowledge_sources
              WHERE workspace_id = $4 AND chatbot_id = $3 AND embedded AND status = 'ready')
           ELSE false END AS embedded`;

/**
 * Full-text ranking in one round trip. Each question word becomes its lexemes
 * under the bot's text-search configuration (stop words drop out); a word the
 * bot's vocabulary (knowledge_terms, migration 0080) does not know is replaced
 * by its related words the vocabulary knows (a thesaurus's, given by the
 * caller, at `relatedWeight`), or, when it is no dictionary word (a typo), by
 * the known lexeme most similar to it by trigrams (pg_trgm), weighted by that
 * similarity. Candidates are every chunk holding a term found in at most
 * `perTerm` chunks (one GIN scan for all such terms); only when every term is
 * more common, at most `perTerm` chunks each holding the rarest term, all the
 * terms, or the two rarest. A common term gathers no candidates of its own:
 * its chunks would be an arbitrary few of many, each sharing one common word
 * with the question, and on a 100,000-chunk base reading them costs more than
 * the whole search may. Candidates are ranked by
 * BM25: the sum over question words of the best matched term's rarity (idf;
 * several related words of one question word count once), a term found in the
 * chunk's title or heading path counting `titleBoost` times, normalised by the
 * chunk's length against the bot's average. Presence, not repetition, is
 * counted: chunks are short, and a word repeated in one is rarely more
 * relevant for it.
 */
export async function searchChunksRanked(
  sql: Executor,
  workspaceId: number,
  chatbotId: number,
  query: {
    language: string;
    words: string[];
    limit: number;
    perTerm: number;
    minSimilarity: number;
    titleBoost: number;
    withEmbeddedFlag?: boolean;
    /** Words standing in for a question word (`of`) when the vocabulary lacks it. */
    related?: { word: string; of: string }[];
    /** What a related word counts against the question's own (0..1). */
    relatedWeight?: number;
    /** Question words known to be spelled right: not corrected by trigram similarity. */
    dictionaryWords?: string[];
    /**
     * How many of the best hits bring the chunks just before and after them
     * (one index probe each, in the same statement): the passages retrieval
     * grows from its best chunks.
     */
    neighboursOf?: number;
  },
): Promise<RankedSearch> {
  // Lexemes are quoted for tsquery (' and \\ doubled), so any word is a literal.
  // An unnamed statement (sql.unsafe, not prepared): planned for each question's
  // own terms and bot. A cached generic plan cannot see that one bot holds all
  // 100,000 chunks and intersects the GIN matches with every one of them
  // through the bot's btree index, many times slower.
  const [row] = await sql.unsafe<
    { terms: RankedTerm[] | null; hits: ChunkHit[]; near: ChunkHit[]; embedded: boolean }[]
  >(
    RANKED_SEARCH,
    [
      query.words,
      query.language,
      chatbotId,
      workspaceId,
      query.perTerm,
      query.minSimilarity,
      query.titleBoost,
      query.limit,
      query.withEmbeddedFlag ?? false,
      (query.related ?? []).map((r) => r.word),
      (query.related ?? []).map((r) => r.of),
      query.relatedWeight ?? 0,
      query.dictionaryWords ?? [],
      query.neighboursOf ?? 0,
    ],
  );
  const hits = row?.hits ?? [];
  return {
    terms: row?.terms ?? [],
    hits,
    botHasEmbeddings: row?.embedded ?? false,
    near: row?.near ?? [],
    nearOf: hits.slice(0, query.neighboursOf ?? 0).map((h) => h.id),
  };
}

/**
 * Vector candidates by cosine similarity, above `minSimilarity`, with the
 * chunks just before and after the best `neighboursOf` of them (as
 * `searchChunksRanked` gives for its hits). Needs pgvector.
 */
export async function searchChunksVector(
  sql: Executor,
  workspaceId: number,
  chatbotId: number,
  query: { embedding: number[]; limit: number; minSimilarity: number; neighboursOf?: number },
): Promise<Pick<RankedSearch, "hits" | "near" | "nearOf">> {
  const vec = vectorLiteral(query.embedding);
  const [row] = await sql<{ hits: ChunkHit[]; near: ChunkHit[] }[]>`
    WITH hits AS MATERIALIZED (
      SELECT id, source_id, ordinal, title, url, content, score
        FROM (
        SELECT k.id, k.source_id, k.ordinal, k.title, k.url, k.content,
               (1 - (k.embedding <=> ${vec}::vector))::float8 AS score
          FROM knowledge_chunks k
         WHERE k.workspace_id = ${workspaceId} AND k.chatbot_id = ${chatbotId}
           AND k.embedding IS NOT NULL AND vector_dims(k.embedding) = ${query.embedding.length}
      ) s
       WHERE score >= ${query.minSimilarity}
       ORDER BY score DESC, id
       LIMIT ${query.limit})
    SELECT COALESCE((SELECT json_agg(h ORDER BY h.score DESC, h.id)
                       FROM (SELECT hits.*, (SELECT src.title FROM knowledge_sources src
                                              WHERE src.id = hits.source_id) AS source_title
                               FROM hits) h), '[]') AS hits,
           COALESCE((SELECT json_agg(n)
                       FROM (SELECT k.id, k.source_id, k.ordinal, k.title, k.url, k.content,
                                    (SELECT src.title FROM knowledge_sources src
                                      WHERE src.id = k.source_id) AS source_title
                               FROM (SELECT * FROM hits ORDER BY score DESC, id
                                      LIMIT ${query.neighboursOf ?? 0}) c
                               CROSS JOIN (VALUES (-1), (1)) d(step)
                               JOIN knowledge_chunks k
                                 ON k.source_id = c.source_id AND k.ordinal = c.ordinal + d.step
                              WHERE NOT EXISTS (SELECT 1 FROM hits x WHERE x.id = k.id)) n),
                    '[]') AS near`;
  const hits = row?.hits ?? [];
  return {
    hits,
    near: row?.near ?? [],
    nearOf: hits.slice(0, query.neighboursOf ?? 0).map((h) => h.id),
  };
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
