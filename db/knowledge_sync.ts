/**
 * Keeping url sources in sync: the pages an earlier crawl kept (to fetch them
 * conditionally), the schedule, the scheduler's claim of due sources and the
 * summary of the last sync.
 */
import type { Executor } from "./client.ts";

export type SyncSchedule = "off" | "daily" | "weekly";

/** What the last completed sync (or first crawl) of a url source found. */
export interface SyncSummary {
  added: number;
  changed: number;
  removed: number;
  failed: number;
  finished_at: string;
}

export interface StoredPage {
  id: number;
  url: string;
  etag: string | null;
  lastModified: string | null;
  links: string[];
  contentHash: string;
  ready: boolean;
}

/** The pages a url source holds now, with what a conditional fetch needs. */
export async function storedPages(
  sql: Executor,
  workspaceId: number,
  parentId: number,
): Promise<StoredPage[]> {
  return await sql<StoredPage[]>`
    SELECT id, source_url AS url, etag, last_modified AS "lastModified",
           COALESCE(page_links, '{}') AS links, COALESCE(content_hash, '') AS "contentHash",
           (status = 'ready') AS ready
      FROM knowledge_sources
     WHERE workspace_id = ${workspaceId} AND parent_id = ${parentId}`;
}

/** The interval a schedule adds to a time, as SQL (null when off). */
const nextAfter = (sql: Executor, at: Date) =>
  sql`CASE sync_schedule WHEN 'daily' THEN ${at}::timestamptz + interval '1 day'
                         WHEN 'weekly' THEN ${at}::timestamptz + interval '7 days' END`;

/** A sync finished: its summary, and the next one due a schedule's interval later. */
export async function recordSync(
  sql: Executor,
  workspaceId: number,
  id: number,
  summary: SyncSummary,
  finishedAt: Date,
): Promise<void> {
  await sql`
    UPDATE knowledge_sources
       SET last_sync = ${sql.json(summary as never)}, next_sync_at = ${nextAfter(sql, finishedAt)}
     WHERE workspace_id = ${workspaceId} AND id = ${id}`;
}

/** Set a url source's schedule; the next sync is due an interval from `now` (none when off). */
export async function setSyncSchedule(
  sql: Executor,
  workspaceId: number,
  id: number,
  schedule: SyncSchedule,
  now: Date,
): Promise<void> {
  const days = schedule === "daily" ? 1 : schedule === "weekly" ? 7 : null;
  await sql`
    UPDATE knowledge_sources
       SET sync_schedule = ${schedule}, updated_at = now(),
           next_sync_at = ${now}::timestamptz + make_interval(days => ${days}::int)
     WHERE workspace_id = ${workspaceId} AND id = ${id}`;
}

/**
 * Claim the url sources whose sync is due at `now` (not already queued or
 * running), at most `limit`: each goes back to `pending` and its next sync is
 * moved an interval on, in the statement that claims it. Row locks make the
 * claim once across instances: a second instance's statement skips them, or
 * re-reads them and finds them no longer due.
 */
export async function claimDueSyncs(
  sql: Executor,
  now: Date,
  limit: number,
): Promise<{ id: number; workspace_id: number; chatbot_id: number }[]> {
  return await sql<{ id: number; workspace_id: number; chatbot_id: number }[]>`
    UPDATE knowledge_sources s SET status = 'pending', updated_at = now(),
           next_sync_at = ${nextAfter(sql, now)}
     WHERE s.id IN (
       SELECT id FROM knowledge_sources
        WHERE next_sync_at IS NOT NULL AND next_sync_at <= ${now}::timestamptz
          AND type = 'url' AND parent_id IS NULL AND sync_schedule <> 'off'
          AND status IN ('ready', 'failed')
        ORDER BY next_sync_at, id
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
       AND s.next_sync_at <= ${now}::timestamptz AND s.status IN ('ready', 'failed')
    RETURNING s.id, s.workspace_id, s.chatbot_id`;
}
