/**
 * The dashboard's conversation history: one filtered, keyset-paged statement
 * for the screen and the same filter read in batches for the CSV export.
 * Newest started first, on (created_at, id), which never changes once a
 * conversation exists: a page or an export batch never skips or repeats a
 * row while conversations move. Tags, counts and previews are subqueries of
 * the one statement (no query per row).
 */
import type { Executor } from "./client.ts";

/** The filter as the domain resolved it: ids of this workspace's records only. */
export interface HistoryFilter {
  chatbotId?: number;
  status?: "bot" | "agent" | "closed";
  /** A state of domain/conversations/state_words.ts, from status and handoff state. */
  state?: "ai" | "waiting" | "human" | "resolved";
  /** A user id, or "none" for conversations nobody is assigned to. */
  assignee?: number | "none";
  tagId?: number;
  /** Started at or after `from`, before `until` (exclusive). */
  from?: Date;
  until?: Date;
  /** An exact score, or "rated"/"unrated". */
  rating?: number | "rated" | "unrated";
  /** Full-text search over message contents (domain/history/search_terms.ts). */
  search?: HistorySearch;
}

/**
 * Words that must each appear in some message of the conversation: one
 * tsquery per word (`simple` configuration), with how to run it. `sparse`:
 * few messages match, so the GIN index lists them first (the planner,
 * estimating from a LIMIT, would rather walk the newest conversations and
 * probe each, 1 to 3 s for a rare word at 100,000 conversations). Dense: most
 * pages fill within the first conversations walked, the fast way for a common
 * word. `any` is the words joined by OR, to pick the preview.
 */
export interface HistorySearch {
  terms: { tsquery: string; sparse: boolean }[];
  any: string;
}

/** Where the previous page or batch ended: its last row's start (µs text) and id. */
export interface HistoryKey {
  startedAt: string;
  id: number;
}

export interface HistoryRow {
  id: number;
  public_id: string;
  bot_key: string;
  bot_name: string;
  status: "bot" | "agent" | "closed";
  handoff_state: string;
  resolution: string | null;
  visitor_id: string;
  visitor_name: string | null;
  visitor_email: string | null;
  assigned_user_id: number | null;
  assigned_to: string | null;
  rating: number | null;
  rating_comment: string | null;
  message_count: number;
  tags: { id: number; name: string; color: string }[];
  /** The first matching message with a search, else the newest message (400 chars). */
  preview: string | null;
  created_at: Date;
  last_message_at: Date;
  resolved_at: Date | null;
  /** created_at as exact text (microseconds, UTC), for the next key. */
  started_key: string;
}

/** The same rows as the screen, with what a spreadsheet wants instead of the preview. */
export interface HistoryExportRow extends Omit<HistoryRow, "preview"> {
  visitor_phone: string | null;
  first_message: string | null;
}

const STARTED_KEY = `to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

function stateCondition(sql: Executor, state: NonNullable<HistoryFilter["state"]>) {
  switch (state) {
    case "ai":
      return sql`c.status = 'bot' AND c.handoff_state <> 'handoff_pending'`;
    case "waiting":
      return sql`c.status = 'bot' AND c.handoff_state = 'handoff_pending'`;
    case "human":
      return sql`c.status = 'agent'`;
    case "resolved":
      return sql`c.status = 'closed'`;
  }
}

function where(sql: Executor, workspaceId: number, f: HistoryFilter, after: HistoryKey | null) {
  const parts = [sql`c.workspace_id = ${workspaceId}`];
  if (f.chatbotId !== undefined) parts.push(sql`c.chatbot_id = ${f.chatbotId}`);
  if (f.status) parts.push(sql`c.status = ${f.status}`);
  if (f.state) parts.push(stateCondition(sql, f.state));
  if (f.assignee === "none") parts.push(sql`c.assigned_user_id IS NULL`);
  else if (f.assignee !== undefined) parts.push(sql`c.assigned_user_id = ${f.assignee}`);
  if (f.tagId !== undefined) {
    parts.push(sql`EXISTS (SELECT 1 FROM conversation_tags ct
                            WHERE ct.conversation_id = c.id AND ct.tag_id = ${f.tagId})`);
  }
  if (f.from) parts.push(sql`c.created_at >= ${f.from}`);
  if (f.until) parts.push(sql`c.created_at < ${f.until}`);
  if (f.rating === "rated") parts.push(sql`c.rating IS NOT NULL`);
  else if (f.rating === "unrated") parts.push(sql`c.rating IS NULL`);
  else if (f.rating !== undefined) parts.push(sql`c.rating = ${f.rating}`);
  // The expression is the one the GIN index of migration 0180 is built on.
  for (const term of f.search?.terms ?? []) {
    if (term.sparse) {
      parts.push(sql`c.id = ANY (ARRAY(
        SELECT m.conversation_id FROM messages m
         WHERE m.workspace_id = ${workspaceId}
           AND to_tsvector('simple', m.content) @@ to_tsquery('simple', ${term.tsquery})))`);
    } else {
      parts.push(sql`EXISTS (SELECT 1 FROM messages m
                              WHERE m.workspace_id = ${workspaceId} AND m.conversation_id = c.id
                                AND to_tsvector('simple', m.content)
                                    @@ to_tsquery('simple', ${term.tsquery}))`);
    }
  }
  if (after) {
    parts.push(sql`(c.created_at, c.id) < (${after.startedAt}::timestamptz, ${after.id})`);
  }
  return parts.reduce((acc, p) => sql`${acc} AND ${p}`);
}

const TAGS =
  `COALESCE((SELECT json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color)
                                   ORDER BY t.name)
                          FROM conversation_tags ct JOIN tags t ON t.id = ct.tag_id
                         WHERE ct.conversation_id = c.id), '[]'::json)`;

/** One page of the history, `limit` rows after `after`. */
export async function pageHistory(
  sql: Executor,
  workspaceId: number,
  filter: HistoryFilter,
  after: HistoryKey | null,
  limit: number,
): Promise<HistoryRow[]> {
  const preview = filter.search
    ? sql`(SELECT left(m.content, 400) FROM messages m
            WHERE m.conversation_id = c.id
              AND to_tsvector('simple', m.content) @@ to_tsquery('simple', ${filter.search.any})
            ORDER BY m.id LIMIT 1)`
    : sql`(SELECT left(m.content, 400) FROM messages m
            WHERE m.conversation_id = c.id ORDER BY m.id DESC LIMIT 1)`;
  return await sql<HistoryRow[]>`
    SELECT c.id, c.public_id, b.public_key AS bot_key, b.name AS bot_name, c.status,
      c.handoff_state, c.resolution, c.visitor_id, c.visitor_name, c.visitor_email,
      c.assigned_user_id, u.name AS assigned_to, c.rating, c.rating_comment,
      (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id)::int AS message_count,
      ${sql.unsafe(TAGS)} AS tags, ${preview} AS preview,
      c.created_at, c.last_message_at, c.resolved_at, ${sql.unsafe(STARTED_KEY)} AS started_key
      FROM conversations c
      JOIN chatbots b ON b.id = c.chatbot_id
      LEFT JOIN users u ON u.id = c.assigned_user_id
     WHERE ${where(sql, workspaceId, filter, after)}
     ORDER BY c.created_at DESC, c.id DESC
     LIMIT ${limit}`;
}

/** One batch of the export, `limit` rows after `after`. */
export async function exportBatch(
  sql: Executor,
  workspaceId: number,
  filter: HistoryFilter,
  after: HistoryKey | null,
  limit: number,
): Promise<HistoryExportRow[]> {
  return await sql<HistoryExportRow[]>`
    SELECT c.id, c.public_id, b.public_key AS bot_key, b.name AS bot_name, c.status,
      c.handoff_state, c.resolution, c.visitor_id, c.visitor_name, c.visitor_email,
      c.visitor_phone, c.assigned_user_id, u.name AS assigned_to, c.rating, c.rating_comment,
      (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id)::int AS message_count,
      ${sql.unsafe(TAGS)} AS tags,
      (SELECT left(m.content, 1000) FROM messages m
        WHERE m.conversation_id = c.id AND m.role = 'visitor' ORDER BY m.id LIMIT 1)
        AS first_message,
      c.created_at, c.last_message_at, c.resolved_at, ${sql.unsafe(STARTED_KEY)} AS started_key
      FROM conversations c
      JOIN chatbots b ON b.id = c.chatbot_id
      LEFT JOIN users u ON u.id = c.assigned_user_id
     WHERE ${where(sql, workspaceId, filter, after)}
     ORDER BY c.created_at DESC, c.id DESC
     LIMIT ${limit}`;
}

/** The ids a filter names, when they belong to the workspace (null otherwise). */
export async function resolveFilterNames(
  sql: Executor,
  workspaceId: number,
  names: { bot?: string; tag?: number; agent?: number },
): Promise<{ bot: number | null; tag: number | null; agent: number | null }> {
  const [row] = await sql<{ bot: number | null; tag: number | null; agent: number | null }[]>`
    SELECT
      (SELECT id FROM chatbots WHERE workspace_id = ${workspaceId}
          AND public_key = ${names.bot ?? null}) AS bot,
      (SELECT id FROM tags WHERE workspace_id = ${workspaceId} AND id = ${
    names.tag ?? null
  }) AS tag,
      (SELECT id FROM users WHERE workspace_id = ${workspaceId}
          AND id = ${names.agent ?? null}) AS agent`;
  return row!;
}

/** How many messages of the workspace match, counting no further than `cap` (GIN index). */
export async function countSearchHits(
  sql: Executor,
  workspaceId: number,
  tsquery: string,
  cap: number,
): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM (
      SELECT 1 FROM messages m
       WHERE m.workspace_id = ${workspaceId}
         AND to_tsvector('simple', m.content) @@ to_tsquery('simple', ${tsquery})
       LIMIT ${cap}) hits`;
  return row!.n;
}
