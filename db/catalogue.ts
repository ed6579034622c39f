/**
 * catalogue_products and catalogue_syncs: a workspace's products, synced from
 * its storefront, indexed like knowledge chunks (`knowledge_tsv`: the name
 * with weight A, then the text), and the state of its last sync.
 */
import type { Executor } from "./client.ts";

export interface CatalogueProduct {
  product_id: string;
  name: string;
  description: string;
  price_minor: number;
  currency: string;
  url: string;
  buy_url: string;
  image_url: string | null;
  in_stock: boolean;
}

export interface NewCatalogueProduct extends CatalogueProduct {
  /** What full-text search reads besides the name: description, type, vendor, tags. */
  searchText: string;
  /** Present only when the provider embedded the product and pgvector is enabled. */
  embedding?: number[] | null;
}

/**
 * Make the stored catalogue exactly `products`: changed rows are updated in
 * place, new ones added, the rest deleted. The caller wraps it in a transaction.
 */
export async function replaceCatalogue(
  sql: Executor,
  workspaceId: number,
  opts: { language: string; embeddingModel?: string | null; withVectors?: boolean },
  products: NewCatalogueProduct[],
): Promise<void> {
  const ids = products.map((p) => p.product_id);
  await sql`
    DELETE FROM catalogue_products
     WHERE workspace_id = ${workspaceId} AND NOT (product_id = ANY(${sql.array(ids)}::text[]))`;
  const BATCH = 500;
  for (let i = 0; i < products.length; i += BATCH) {
    const part = products.slice(i, i + BATCH);
    const col = <K extends keyof NewCatalogueProduct>(k: K) => part.map((p) => p[k]);
    const vectors = part.map((p) => p.embedding?.length ? `[${p.embedding.join(",")}]` : "");
    const model = opts.withVectors ? opts.embeddingModel ?? null : null;
    await sql.unsafe(
      `INSERT INTO catalogue_products AS c (workspace_id, product_id, name, description,
              price_minor, currency, url, buy_url, image_url, in_stock, tsv, embedding_model,
              synced_at${opts.withVectors ? ", embedding" : ""})
       SELECT $1, p.product_id, p.name, p.description, p.price_minor, p.currency, p.url,
              p.buy_url, NULLIF(p.image_url, ''), p.in_stock,
              knowledge_tsv($2::regconfig, p.name, p.search_text), $3, now()
              ${opts.withVectors ? ", NULLIF(p.embedding, '')::vector" : ""}
         FROM unnest($4::text[], $5::text[], $6::text[], $7::text[]::bigint[], $8::text[],
                     $9::text[], $10::text[], $11::text[], $12::text[]::boolean[], $13::text[],
                     $14::text[])
              AS p(product_id, name, description, price_minor, currency, url, buy_url,
                   image_url, in_stock, search_text, embedding)
       ON CONFLICT (workspace_id, product_id) DO UPDATE SET name = EXCLUDED.name,
              description = EXCLUDED.description, price_minor = EXCLUDED.price_minor,
              currency = EXCLUDED.currency, url = EXCLUDED.url, buy_url = EXCLUDED.buy_url,
              image_url = EXCLUDED.image_url, in_stock = EXCLUDED.in_stock, tsv = EXCLUDED.tsv,
              embedding_model = EXCLUDED.embedding_model, synced_at = now()
              ${opts.withVectors ? ", embedding = EXCLUDED.embedding" : ""}`,
      [
        workspaceId,
        opts.language,
        model,
        col("product_id"),
        col("name"),
        col("description"),
        part.map((p) => String(p.price_minor)),
        col("currency"),
        col("url"),
        col("buy_url"),
        part.map((p) => p.image_url ?? ""),
        part.map((p) => String(p.in_stock)),
        col("searchText"),
        vectors,
      ] as never[],
    );
  }
}

export async function deleteCatalogue(sql: Executor, workspaceId: number): Promise<void> {
  await sql`DELETE FROM catalogue_products WHERE workspace_id = ${workspaceId}`;
  await sql`DELETE FROM catalogue_syncs WHERE workspace_id = ${workspaceId}`;
}

export interface CatalogueSync {
  status: "pending" | "syncing" | "ready" | "failed";
  products: number;
  synced_at: Date | null;
  last_error: string | null;
}

export async function setCatalogueSync(
  sql: Executor,
  workspaceId: number,
  state: { status: CatalogueSync["status"]; products?: number; error?: string | null },
): Promise<void> {
  const done = state.status === "ready";
  await sql`
    INSERT INTO catalogue_syncs AS s (workspace_id, status, products, synced_at, last_error)
    VALUES (${workspaceId}, ${state.status}, ${state.products ?? 0},
            ${done ? sql`now()` : null}, ${state.error ?? null})
    ON CONFLICT (workspace_id) DO UPDATE SET status = EXCLUDED.status,
      products = CASE WHEN ${done} THEN EXCLUDED.products ELSE s.products END,
      synced_at = CASE WHEN ${done} THEN EXCLUDED.synced_at ELSE s.synced_at END,
      last_error = EXCLUDED.last_error, updated_at = now()`;
}

export async function findCatalogueSync(
  sql: Executor,
  workspaceId: number,
): Promise<CatalogueSync | null> {
  const [row] = await sql<CatalogueSync[]>`
    SELECT status, products, synced_at, last_error FROM catalogue_syncs
     WHERE workspace_id = ${workspaceId}`;
  return row ?? null;
}

export interface ProductHit extends CatalogueProduct {
  id: number;
  score: number;
  /** The question's lexemes the product holds, and those in its name. */
  matched: string[];
  in_name: string[];
}

export interface CatalogueSearch {
  /** Products in the workspace's catalogue (0: none linked or synced). */
  size: number;
  /** The last sync's time (the vocabulary cache's version). */
  version: string;
  /** Whether they carry embeddings of the model asked about. */
  embedded: boolean;
  /** The question's lexemes (stop words dropped), corrections and other forms included. */
  lexemes: string[];
  /** Those of them from words that name what is wanted (weight 1), not what it goes with. */
  headLexemes: string[];
  /** Those some product (within the price bounds) holds. */
  catalogueLexemes: string[];
  /** Those of the words as written (not their other forms). */
  writtenLexemes: string[];
  /** Those the bot's knowledge vocabulary holds (knowledge_terms). */
  knowledgeLexemes: string[];
  /** Another form's lexeme and the lexeme of the word as written it stands for ("leav" → "leaf"). */
  forms: { lex: string; of: string }[];
  /** For `unsure` words known neither way: the nearest knowledge lexeme by trigrams. */
  nearSupport: { word: string; lex: string }[];
  hits: ProductHit[];
}

/** Price bounds in whole units; the SQL scales them by each product's currency's minor unit. */
export interface PriceBounds {
  min: number | null;
  max: number | null;
}

/** ISO 4217 currencies without a minor unit, and those with three decimals (the rest: two). */
const ZERO_DIGIT = [
  "BIF",
  "CLP",
  "DJF",
  "GNF",
  "ISK",
  "JPY",
  "KMF",
  "KRW",
  "PYG",
  "RWF",
  "UGX",
  "UYI",
  "VND",
  "VUV",
  "XAF",
  "XOF",
  "XPF",
];
const THREE_DIGIT = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"];

/** `p`'s price within bounds $min and $max (whole units), or no bound when null. */
function priceWithin(p: string, min: string, max: string, zero: string, three: string): string {
  const scale = `power(10, CASE WHEN ${p}.currency = ANY(${zero}::text[]) THEN 0
                                 WHEN ${p}.currency = ANY(${three}::text[]) THEN 3 ELSE 2 END)`;
  return `(${min}::float8 IS NULL OR ${p}.price_minor >= ${min}::float8 * ${scale})
          AND (${max}::float8 IS NULL OR ${p}.price_minor <= ${max}::float8 * ${scale})`;
}

/**
 * Full-text ranking of the catalogue in one round trip: each question word
 * becomes its lexemes under the bot's configuration, each weighted (a word
 * that only says what the product goes with, "for my bike", weighs less);
 * other forms of a word are added (an irregular plural's singular always, a
 * misspelling's correction only when the word as written is known neither to
 * the catalogue nor to the bot's knowledge); products within the price
 * bounds holding any are ranked by BM25's idf over the catalogue (presence,
 * a name match counting `nameBoost` times), and the same statement tells
 * which lexemes the bot's knowledge vocabulary knows: the caller weighs
 * "about a product" against "about the help centre" from both. A workspace
 * without a catalogue stops at its sync row (the product count the last sync
 * stored).
 */
const CATALOGUE_SEARCH = `
    -- The size as the last sync stored it (same transaction as the rows): no count per question.
    WITH st AS (
      SELECT COALESCE((SELECT products FROM catalogue_syncs WHERE workspace_id = $3), 0)::float8
               AS n,
             COALESCE((SELECT synced_at::text FROM catalogue_syncs WHERE workspace_id = $3), '')
               AS version),
    written AS (
      SELECT w.word, l.lex, w.weight
        FROM st, unnest($1::text[], $8::text[]::float8[]) AS w(word, weight),
             unnest(tsvector_to_array(to_tsvector($2::regconfig, w.word))) AS l(lex)
       WHERE st.n > 0),
    alt AS (
      SELECT a.word, l.lex, a.weight, a.always
        FROM st, unnest($9::text[], $10::text[], $11::text[]::float8[], $12::text[]::boolean[])
                   AS a(word, alt, weight, always),
             unnest(tsvector_to_array(to_tsvector($2::regconfig, a.alt))) AS l(lex)
       WHERE st.n > 0),
    -- The unsure words (not in the catalogue's words as written) known neither to the catalogue
    -- nor to the knowledge: only these take a correction, and one may be a misspelt
    -- help-centre word ("refnd"): the knowledge lexemes nearest to it, for the caller to judge.
    unknown AS (
      SELECT w.word, w.lex FROM written w
       WHERE w.word = ANY($17::text[]) AND NOT EXISTS (
               SELECT 1 FROM knowledge_terms k WHERE k.chatbot_id = $6 AND k.lexeme = w.lex)
         AND NOT EXISTS (
               SELECT 1 FROM catalogue_products p
                WHERE p.workspace_id = $3
                  AND p.tsv @@ (chr(39) || replace(replace(w.lex, chr(92), chr(92) || chr(92)),
                                chr(39), chr(39) || chr(39)) || chr(39))::tsquery)),
    near_support AS (
      SELECT DISTINCT ON (u.word) u.word, k.lexeme AS lex
        FROM unknown u JOIN knowledge_terms k ON k.chatbot_id = $6 AND k.lexeme % u.lex
       ORDER BY u.word, similarity(k.lexeme, u.lex) DESC, k.lexeme),
    qw AS (
      SELECT lex, max(weight) AS weight FROM (
        SELECT lex, weight FROM written
        UNION ALL
        SELECT lex, weight FROM alt WHERE always OR word IN (SELECT word FROM unknown)) x
       GROUP BY lex),
    terms AS MATERIALIZED (
      SELECT q.lex, q.weight, qq.quoted, qq.quoted::tsquery AS tsq,
             (qq.quoted || ':A')::tsquery AS tsq_name
        FROM qw q,
             LATERAL (SELECT chr(39) || replace(replace(q.lex, chr(92), chr(92) || chr(92)),
                                                chr(39), chr(39) || chr(39)) || chr(39) AS quoted) qq),
    -- Every product holding a term, within the price bounds, from one GIN scan; then which terms.
    cand AS MATERIALIZED (
      SELECT p.id, p.tsv FROM catalogue_products p
       WHERE p.tsv @@ (SELECT string_agg(quoted, ' | ')::tsquery FROM terms)
         AND p.workspace_id = $3
         AND ${priceWithin("p", "$13", "$14", "$15", "$16")}),
    m AS MATERIALIZED (
      SELECT c.id, t.lex, t.weight, c.tsv @@ t.tsq_name AS in_name
        FROM cand c JOIN terms t ON c.tsv @@ t.tsq),
    df AS (SELECT lex, count(*)::float8 AS df FROM m GROUP BY lex),
    scored AS (
      SELECT m.id,
             sum(ln(1 + (st.n - df.df + 0.5) / (df.df + 0.5)) * m.weight
                 * CASE WHEN m.in_name THEN $4::float8 ELSE 1 END)::float8 AS score,
             array_agg(m.lex) AS matched,
             COALESCE(array_agg(m.lex) FILTER (WHERE m.in_name), '{}') AS in_name
        FROM m JOIN df ON df.lex = m.lex CROSS JOIN st
       GROUP BY m.id
       ORDER BY score DESC, m.id
       LIMIT $5)
    SELECT (SELECT n FROM st)::int AS size,
           (SELECT version FROM st) AS version,
           (SELECT n FROM st) > 0 AND $7::text IS NOT NULL AND EXISTS (
             SELECT 1 FROM catalogue_products
              WHERE workspace_id = $3 AND embedding_model = $7::text) AS embedded,
           COALESCE((SELECT array_agg(lex) FROM terms), '{}') AS lexemes,
           COALESCE((SELECT array_agg(lex) FROM terms WHERE weight >= 1), '{}') AS head_lexemes,
           COALESCE((SELECT array_agg(lex) FROM df), '{}') AS catalogue_lexemes,
           COALESCE((SELECT array_agg(DISTINCT lex) FROM written), '{}') AS written_lexemes,
           COALESCE((SELECT json_agg(json_build_object('word', word, 'lex', lex))
                       FROM near_support), '[]') AS near_support,
           COALESCE((SELECT json_agg(DISTINCT jsonb_build_object('lex', a.lex, 'of', w.lex))
                       FROM alt a JOIN written w ON w.word = a.word
                      WHERE a.lex <> w.lex), '[]') AS forms,
           COALESCE((SELECT array_agg(t.lex) FROM terms t
                      WHERE EXISTS (SELECT 1 FROM knowledge_terms k
                                     WHERE k.chatbot_id = $6 AND k.lexeme = t.lex)), '{}')
             AS knowledge_lexemes,
           COALESCE((SELECT json_agg(h ORDER BY h.score DESC, h.id)
                       FROM (SELECT p.id, p.product_id, p.name, p.description, p.price_minor,
                                    p.currency, p.url, p.buy_url, p.image_url, p.in_stock,
                                    s.score, s.matched, s.in_name
                               FROM scored s JOIN catalogue_products p ON p.id = s.id) h),
                    '[]') AS hits`;

export async function searchCatalogue(
  sql: Executor,
  workspaceId: number,
  chatbotId: number,
  query: {
    language: string;
    words: string[];
    /** Per word (same order): 1 for what is wanted, less for what it goes with. */
    weights?: number[];
    /** Other forms: `always` ones are searched; the others only when `word` is unknown. */
    alternatives?: { of: string; alt: string; weight: number; always: boolean }[];
    price?: PriceBounds;
    /** Words the catalogue's vocabulary lacks as written: report knowledge lexemes near them. */
    unsure?: string[];
    limit: number;
    nameBoost: number;
    /** Ask whether the products are embedded with this model. */
    embeddingModel?: string | null;
  },
): Promise<CatalogueSearch> {
  const alts = query.alternatives ?? [];
  const [row] = await sql.unsafe<
    {
      size: number;
      version: string;
      embedded: boolean;
      lexemes: string[];
      head_lexemes: string[];
      catalogue_lexemes: string[];
      written_lexemes: string[];
      near_support: { word: string; lex: string }[];
      knowledge_lexemes: string[];
      forms: { lex: string; of: string }[];
      hits: ProductHit[];
    }[]
  >(CATALOGUE_SEARCH, [
    query.words,
    query.language,
    workspaceId,
    query.nameBoost,
    query.limit,
    chatbotId,
    query.embeddingModel ?? null,
    (query.weights ?? query.words.map(() => 1)).map(String),
    alts.map((a) => a.of),
    alts.map((a) => a.alt),
    alts.map((a) => String(a.weight)),
    alts.map((a) => String(a.always)),
    query.price?.min ?? null,
    query.price?.max ?? null,
    ZERO_DIGIT,
    THREE_DIGIT,
    query.unsure ?? [],
  ] as never[], { prepare: true });
  return {
    size: row?.size ?? 0,
    version: row?.version ?? "",
    embedded: row?.embedded ?? false,
    lexemes: row?.lexemes ?? [],
    headLexemes: row?.head_lexemes ?? [],
    catalogueLexemes: row?.catalogue_lexemes ?? [],
    writtenLexemes: row?.written_lexemes ?? [],
    nearSupport: row?.near_support ?? [],
    knowledgeLexemes: row?.knowledge_lexemes ?? [],
    forms: row?.forms ?? [],
    hits: (row?.hits ?? []).map((h) => ({ ...h, price_minor: Number(h.price_minor) })),
  };
}

/**
 * The words of a workspace's product names and descriptions (lower case, two
 * letters or more), with how many products hold each: what a misspelt
 * question word is corrected towards. Read once per sync (`version`).
 */
export async function catalogueVocabulary(
  sql: Executor,
  workspaceId: number,
): Promise<{ version: string; words: { word: string; df: number }[] }> {
  const [row] = await sql<{ version: string; words: { word: string; df: number }[] | null }[]>`
    SELECT COALESCE((SELECT synced_at::text FROM catalogue_syncs
                      WHERE workspace_id = ${workspaceId}), '') AS version,
           (SELECT json_agg(json_build_object('word', word, 'df', df)) FROM (
              SELECT w.word, count(DISTINCT p.id)::int AS df
                FROM catalogue_products p,
                     regexp_split_to_table(lower(p.name || ' ' || p.description), '[^[:alpha:]]+')
                       AS w(word)
               WHERE p.workspace_id = ${workspaceId} AND length(w.word) >= 2
               GROUP BY w.word) v) AS words`;
  return { version: row?.version ?? "", words: row?.words ?? [] };
}

/** Vector candidates by cosine similarity, above `minSimilarity`. Needs pgvector. */
export async function searchCatalogueVector(
  sql: Executor,
  workspaceId: number,
  query: {
    embedding: number[];
    model: string;
    limit: number;
    minSimilarity: number;
    price?: PriceBounds;
  },
): Promise<(CatalogueProduct & { id: number; score: number })[]> {
  const vec = `[${query.embedding.join(",")}]`;
  const min = query.price?.min ?? null;
  const max = query.price?.max ?? null;
  const rows = await sql<(CatalogueProduct & { id: number; score: number })[]>`
    SELECT * FROM (
      SELECT p.id, p.product_id, p.name, p.description, p.price_minor, p.currency, p.url,
             p.buy_url, p.image_url, p.in_stock,
             (1 - (p.embedding <=> ${vec}::vector))::float8 AS score
        FROM catalogue_products p
       WHERE p.workspace_id = ${workspaceId} AND p.embedding_model = ${query.model}
         AND p.embedding IS NOT NULL AND vector_dims(p.embedding) = ${query.embedding.length}
         AND (${min}::float8 IS NULL OR p.price_minor >= ${min}::float8 * ${scaleOf(sql)})
         AND (${max}::float8 IS NULL OR p.price_minor <= ${max}::float8 * ${scaleOf(sql)})
    ) s
     WHERE score >= ${query.minSimilarity}
     ORDER BY score DESC, id
     LIMIT ${query.limit}`;
  return rows.map((r) => ({ ...r, price_minor: Number(r.price_minor) }));
}

/** The minor unit's scale of the row `p`'s currency, as a fragment of a tagged statement. */
function scaleOf(sql: Executor) {
  return sql`power(10, CASE WHEN p.currency = ANY(${sql.array(ZERO_DIGIT)}::text[]) THEN 0
                            WHEN p.currency = ANY(${sql.array(THREE_DIGIT)}::text[]) THEN 3
                            ELSE 2 END)`;
}

/**
 * The bot whose language indexes the catalogue and whose provider embeds it:
 * the workspace's oldest active bot (else its oldest). Null without bots.
 */
export async function catalogueBot(
  sql: Executor,
  workspaceId: number,
): Promise<{ language: string; provider: string } | null> {
  const [row] = await sql<{ language: string; provider: string }[]>`
    SELECT language, provider FROM chatbots WHERE workspace_id = ${workspaceId}
     ORDER BY is_active DESC, id LIMIT 1`;
  return row ?? null;
}

/** Workspaces with a linked storefront: each has a periodic catalogue sync. */
export async function storefrontWorkspaces(sql: Executor): Promise<number[]> {
  const rows = await sql<{ workspace_id: number }[]>`
    SELECT workspace_id FROM workspace_integrations WHERE service = 'storefront'
     ORDER BY workspace_id`;
  return rows.map((r) => Number(r.workspace_id));
}
