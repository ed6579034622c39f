/**
 * Knowledge queries of the portal and the indexing pipeline: top-level
 * listing, deletion of a source tree, crawled pages and crawl progress.
 * (db/knowledge.ts holds the queries shared with training and retrieval.)
 */
import type { Executor } from "./client.ts";
import type { KnowledgeSourceRow } from "./knowledge.ts";

/** Sources a user created (crawled pages are children, not listed). Newest first. */
export async function listTopLevelSources(
  sql: Executor,
  workspaceId: number,
  chatbotId: number,
): Promise<KnowledgeSourceRow[]> {
  return await sql<KnowledgeSourceRow[]>`
    SELECT * FROM knowledge_sources
     WHERE workspace_id = ${workspaceId} AND chatbot_id = ${chatbotId} AND parent_id IS NULL
     ORDER BY created_at DESC, id DESC`;
}

/**
 * Delete a top-level source; its pages and every chunk go with it through the
 * foreign keys' ON DELETE CASCADE. False when no such source exists.
 */
export async function deleteTopLevelSource(
  sql: Executor,
  workspaceId: number,
  chatbotId: number,
  id: number,
): Promise<boolean> {
  const rows = await sql`
    DELETE FROM knowledge_sources
     WHERE workspace_id = ${workspaceId} AND chatbot_id = ${chatbotId} AND id = ${id}
       AND parent_id IS NULL
    RETURNING id`;
  return rows.length > 0;
}

export interface PageUpsert {
  parentId: number;
  chatbotId: number;
  url: string;
  title: string;
  content: string;
  contentHash: string;
  /** The validators its server sent and its links (a later sync's conditional GET). */
  etag?: string | null;
  lastModified?: string | null;
  links?: string[];
}

/**
 * Store a crawled page under its url source, keyed on its URL. `unchanged` is
 * true when the same text is already indexed, so training can be skipped;
 * `inserted` when the URL is new to the source (a sync's "added").
 */
export async function upsertPage(
  sql: Executor,
  workspaceId: number,
  p: PageUpsert,
): Promise<{ id: number; unchanged: boolean; inserted: boolean }> {
  const links = sql.array(p.links ?? []);
  const [row] = await sql<{ id: number; unchanged: boolean; inserted: boolean }[]>`
    INSERT INTO knowledge_sources (workspace_id, chatbot_id, parent_id, type, title, content,
      source_url, content_hash, status, etag, last_modified, page_links)
    VALUES (${workspaceId}, ${p.chatbotId}, ${p.parentId}, 'page', ${p.title}, ${p.content},
      ${p.url}, ${p.contentHash}, 'pending', ${p.etag ?? null}, ${p.lastModified ?? null},
      ${links}::text[])
    ON CONFLICT (parent_id, source_url) WHERE parent_id IS NOT NULL DO UPDATE SET
      title = EXCLUDED.title, content = EXCLUDED.content, content_hash = EXCLUDED.content_hash,
      etag = EXCLUDED.etag, last_modified = EXCLUDED.last_modified,
      page_links = EXCLUDED.page_links,
      status = CASE WHEN knowledge_sources.content_hash = EXCLUDED.content_hash
                     AND knowledge_sources.status = 'ready'
                    THEN 'ready' ELSE 'pending' END,
      updated_at = now()
    RETURNING id, (status = 'ready') AS unchanged, (xmax = 0) AS inserted`;
  return row!;
}

/** Crawl progress; the chunk count follows the pages indexed so far. */
export interface CrawlProgress {
  pagesFound: number;
  pagesIndexed: number;
  pagesFailed: number;
  pagesSkipped: number;
}

/** Writes a crawl's progress; returns the url source's chunk count so far (null: it is gone). */
export async function setCrawlProgress(
  sql: Executor,
  workspaceId: number,
  id: number,
  progress: CrawlProgress,
): Promise<number | null> {
  const [row] = await sql<{ chunk_count: number }[]>`
    UPDATE knowledge_sources SET pages_found = ${progress.pagesFound},
           pages_indexed = ${progress.pagesIndexed}, pages_failed = ${progress.pagesFailed},
           pages_skipped = ${progress.pagesSkipped}, updated_at = now(),
           chunk_count = (SELECT COALESCE(sum(chunk_count), 0)::int FROM knowledge_sources
                           WHERE workspace_id = ${workspaceId} AND parent_id = ${id}
                             AND status = 'ready')
     WHERE workspace_id = ${workspaceId} AND id = ${id}
    RETURNING chunk_count`;
  return row?.chunk_count ?? null;
}

/**
 * Recount a url source from its ready pages without changing its status, so a
 * source that failed part-way shows what was indexed (and stays searchable).
 */
export async function recountPages(sql: Executor, workspaceId: number, id: number): Promise<void> {
  await sql`
    UPDATE knowledge_sources s SET chunk_count = t.chunks, pages_indexed = t.pages
      FROM (SELECT COALESCE(sum(chunk_count), 0)::int AS chunks, count(*)::int AS pages
              FROM knowledge_sources
             WHERE workspace_id = ${workspaceId} AND parent_id = ${id} AND status = 'ready') t
     WHERE s.workspace_id = ${workspaceId} AND s.id = ${id} AND s.type = 'url'`;
}

/**
 * Pages of a url source not kept by the latest crawl are dropped with their
 * chunks. Returns how many went (a sync's "removed").
 */
export async function deletePagesExcept(
  sql: Executor,
  workspaceId: number,
  parentId: number,
  keepIds: number[],
): Promise<number> {
  const rows = await sql`
    DELETE FROM knowledge_sources
     WHERE workspace_id = ${workspaceId} AND parent_id = ${parentId}
       AND NOT (id = ANY(${sql.array(keepIds)}::bigint[]))
    RETURNING id`;
  return rows.length;
}

/**
 * Close a crawl: the url source's chunk count is the sum over its pages, and
 * it is ready. Returns the totals written.
 */
export async function finishUrlSource(
  sql: Executor,
  workspaceId: number,
  id: number,
): Promise<{ chunks: number; pages: number }> {
  const [row] = await sql<{ chunks: number; pages: number }[]>`
    UPDATE knowledge_sources s SET status = 'ready', error = NULL, updated_at = now(),
           chunk_count = t.chunks, pages_indexed = t.pages
      FROM (SELECT COALESCE(sum(chunk_count), 0)::int AS chunks, count(*)::int AS pages
              FROM knowledge_sources
             WHERE workspace_id = ${workspaceId} AND parent_id = ${id} AND status = 'ready') t
     WHERE s.workspace_id = ${workspaceId} AND s.id = ${id}
    RETURNING t.chunks, t.pages`;
  return row ?? { chunks: 0, pages: 0 };
}

/** Status and failure reason of a source, as the pipeline moves it along. */
export async function setSourceState(
  sql: Executor,
  workspaceId: number,
  id: number,
  status: "pending" | "processing" | "ready" | "failed",
  error: string | null = null,
): Promise<void> {
  await sql`
    UPDATE knowledge_sources SET status = ${status}, error = ${error}, updated_at = now()
     WHERE workspace_id = ${workspaceId} AND id = ${id}`;
}

/** The full-text configuration of the bot a source belongs to. */
export async function sourceLanguage(
  sql: Executor,
  workspaceId: number,
  sourceId: number,
): Promise<string> {
  const [row] = await sql<{ language: string }[]>`
    SELECT b.language FROM knowledge_sources s JOIN chatbots b ON b.id = s.chatbot_id
     WHERE s.workspace_id = ${workspaceId} AND s.id = ${sourceId}`;
  return row?.language ?? "english";
}
