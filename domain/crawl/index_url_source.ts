/**
 * Crawl a url source and index every page as a child source (type `page`,
 * `source_url` = the page, so chunks cite it). Progress (pages found,
 * indexed, failed, skipped) is written on the source as pages arrive, at most
 * every 250 ms, and each write is published as `knowledge.progress` once it
 * is committed. Pages are keyed on their URL, so a crawl resumed
 * after a restart re-uses what is already indexed instead of duplicating it;
 * pages the site no longer has are removed at the end.
 *
 * Every crawl after the first is a sync: pages indexed before are fetched
 * conditionally (a 304 keeps the page and its chunks as they are), a page
 * whose text did not change is not re-embedded, a page that answered 404 or
 * 410 or was no longer found is removed, and one that failed otherwise (a
 * server error, a time-out) keeps what it had. What the crawl found (added,
 * changed, removed, failed) is recorded on the source with the next sync's time.
 */
import type { AppDeps } from "../deps.ts";
import type { KnowledgeSourceRow } from "../../db/knowledge.ts";
import {
  deletePagesExcept,
  finishUrlSource,
  setCrawlProgress,
  upsertPage,
} from "../../db/knowledge_admin.ts";
import { recordSync, storedPages, type SyncSummary } from "../../db/knowledge_sync.ts";
import { sha256Hex } from "../auth/secrets.ts";
import { trainSource } from "../knowledge/train_source.ts";
import { publishEvent } from "../events.ts";
import { addressPolicy } from "./address_policy.ts";
import { CrawlRefused, crawlSite, type KnownPage } from "./crawl_site.ts";
import { FILE_MAX_BYTES } from "../knowledge/file_limits.ts";

const PAGE_MAX_BYTES = 2_000_000;
const FETCH_TIMEOUT_MS = 15_000;
const CRAWL_CONCURRENCY = 4;

/** The source was deleted while it was being crawled. */
export class SourceGone extends Error {}

export async function indexUrlSource(
  deps: AppDeps,
  source: KnowledgeSourceRow,
  language: string,
  signal: AbortSignal,
): Promise<{ pages: number; chunks: number; skipped: { url: string; reason: string }[] }> {
  const wid = source.workspace_id;
  const stored = new Map((await storedPages(deps.sql, wid, source.id)).map((p) => [p.url, p]));
  const known = (url: string): KnownPage | undefined => {
    const page = stored.get(url);
    return page?.ready ? page : undefined; // a page never indexed is fetched in full
  };
  const kept: number[] = [];
  const sync = { added: 0, changed: 0, failed: 0 };
  let found = 0;
  let failed = 0;
  let skipped = 0;
  let lastWrite = 0;
  // Writes go one after another, so no stale "processing" lands after the last one.
  let writing: Promise<void> = Promise.resolve();
  const progress = (force = false): Promise<void> => {
    const now = Date.now();
    if (!force && now - lastWrite < 250) return writing;
    lastWrite = now;
    writing = writing.catch(() => {}).then(writeProgress);
    return writing;
  };
  let written = "";
  const writeProgress = async () => {
    const pages = { found, indexed: kept.length, failed, skipped };
    const key = JSON.stringify(pages);
    if (key === written) return; // nothing new since the last write (the closing one, often)
    const chunkCount = await setCrawlProgress(deps.sql, wid, source.id, {
      pagesFound: pages.found,
      pagesIndexed: pages.indexed,
      pagesFailed: pages.failed,
      pagesSkipped: pages.skipped,
    });
    written = key;
    if (chunkCount === null) return; // deleted under us: the next page write says so
    await publishEvent(deps, {
      type: "knowledge.progress",
      workspaceId: wid,
      chatbotId: source.chatbot_id,
      sourceId: source.id,
      status: "processing",
      pages,
      chunkCount,
      error: null,
    });
  };
  let summary;
  try {
    summary = await crawlSite(source.source_url!, {
      policy: addressPolicy(deps.config),
      maxBytes: PAGE_MAX_BYTES,
      pdfMaxBytes: FILE_MAX_BYTES,
      timeoutMs: FETCH_TIMEOUT_MS,
      signal,
      maxPages: deps.config.crawlMaxPages,
      maxDepth: deps.config.crawlMaxDepth,
      concurrency: CRAWL_CONCURRENCY,
      known,
    }, {
      onFound: (n) => {
        found = n;
      },
      onSkipped: ({ url, failed: isFailure, status }) => {
        if (isFailure) failed++;
        else skipped++;
        // Gone (404, 410): removed if indexed before, else a dead link, not a sync failure.
        // Any other failure may pass: the page keeps what it had and the sync counts it.
        const gone = status === 404 || status === 410;
        if (isFailure && !gone) {
          sync.failed++;
          const page = stored.get(url);
          if (page) kept.push(page.id);
        }
        // The crawler does not wait for it; a failed write is redone by the next one.
        progress().catch((err) =>
          deps.log.warn("crawl progress not written", { source: source.id, err: String(err) })
        );
      },
      onUnchanged: async (url) => {
        const page = stored.get(url);
        if (page) kept.push(page.id);
        await progress();
      },
      onPage: async (page) => {
        signal.throwIfAborted();
        let row;
        try {
          row = await upsertPage(deps.sql, wid, {
            parentId: source.id,
            chatbotId: source.chatbot_id,
            url: page.url,
            title: page.title.slice(0, 200),
            content: page.text,
            contentHash: await sha256Hex(page.text),
            etag: page.validators.etag,
            lastModified: page.validators.lastModified,
            links: page.links,
          });
        } catch (err) {
          // 23503: the url source was deleted under us (foreign key).
          if ((err as { code?: string }).code === "23503") throw new SourceGone();
          throw err;
        }
        if (!row.unchanged) {
          await trainSource(deps, wid, row.id, language);
          if (row.inserted) sync.added++;
          else sync.changed++;
        }
        kept.push(row.id);
        await progress();
      },
    });
  } finally {
    // A write still under way lands before the job moves the source on.
    await writing.catch(() => {});
  }
  found = Math.max(found, summary.found);
  await progress(true);
  if (kept.length === 0) {
    // The crawl itself completed: another attempt would find the same pages.
    const why = summary.skipped.slice(0, 3).map((s) => `${s.url}: ${s.reason}`).join("; ");
    throw new CrawlRefused(`No page of the site had text to index${why ? ` (${why})` : ""}.`);
  }
  return await deps.sql.begin(async (tx) => {
    const removed = await deletePagesExcept(tx, wid, source.id, kept);
    const totals = await finishUrlSource(tx, wid, source.id);
    const finishedAt = deps.clock();
    const last: SyncSummary = { ...sync, removed, finished_at: finishedAt.toISOString() };
    await recordSync(tx, wid, source.id, last, finishedAt);
    return { ...totals, skipped: summary.skipped };
  });
}
