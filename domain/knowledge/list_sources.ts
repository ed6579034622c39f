/**
 * The portal's view of a bot's knowledge: top-level sources only (crawled
 * pages belong to their url source), with crawl progress and failure reason.
 */
import type { Executor } from "../../db/client.ts";
import type { KnowledgeSourceRow } from "../../db/knowledge.ts";
import { listTopLevelSources } from "../../db/knowledge_admin.ts";
import type { SyncSchedule, SyncSummary } from "../../db/knowledge_sync.ts";
import { getChatbot } from "../chatbots/get_chatbot.ts";

export interface SourceView {
  id: number;
  type: string;
  title: string;
  source_url: string | null;
  status: string;
  chunk_count: number;
  created_at: string;
  /** When its state last changed (indexed, failed, queued again). */
  updated_at: string;
  /** Why indexing failed (or why the last attempt failed while a retry is pending). */
  error: string | null;
  /** Crawl progress of a url source; null for other types. */
  pages_found: number | null;
  pages_indexed: number | null;
  /** Found but not indexed: could not be fetched or used / left out on purpose (dashboard only). */
  pages_failed: number | null;
  pages_skipped: number | null;
  /** Url sources: re-crawled off, daily or weekly; null for other types. */
  sync_schedule: SyncSchedule | null;
  /** When the next scheduled sync is due (null when off or not a url source). */
  next_sync_at: string | null;
  /** What the last completed sync found; the first crawl counts every page as added. */
  last_sync: SyncSummary | null;
}

export function sourceView(s: KnowledgeSourceRow): SourceView {
  const isUrl = s.type === "url";
  return {
    id: s.id,
    type: s.type,
    title: s.title,
    source_url: s.source_url,
    status: s.status,
    chunk_count: s.chunk_count,
    created_at: s.created_at.toISOString(),
    updated_at: s.updated_at.toISOString(),
    error: s.status === "ready" ? null : s.error,
    pages_found: isUrl ? s.pages_found : null,
    pages_indexed: isUrl ? s.pages_indexed : null,
    pages_failed: isUrl ? s.pages_failed : null,
    pages_skipped: isUrl ? s.pages_skipped : null,
    sync_schedule: isUrl ? s.sync_schedule : null,
    next_sync_at: isUrl && s.next_sync_at ? s.next_sync_at.toISOString() : null,
    last_sync: isUrl ? s.last_sync : null,
  };
}

export async function listSources(
  sql: Executor,
  workspaceId: number,
  publicKey: string,
): Promise<SourceView[]> {
  const bot = await getChatbot(sql, workspaceId, publicKey);
  return (await listTopLevelSources(sql, workspaceId, bot.id)).map(sourceView);
}
