/**
 * visitors: presence and journey of everyone the widget has seen, one row per
 * bot and visitor id, written by the heartbeat and read by the live list.
 */
import type { Executor } from "./client.ts";

export interface VisitorRow {
  workspace_id: number;
  chatbot_id: number;
  visitor_id: string;
  page_url: string | null;
  page_title: string | null;
  referrer: string | null;
  entry_page: string | null;
  user_agent: string | null;
  locale: string | null;
  timezone: string | null;
  chat_open: boolean;
  page_views: number;
  journey: { url: string; at: string | null }[];
  first_seen_at: Date;
  last_seen_at: Date;
}

export interface PresenceInput {
  chatbotId: number;
  visitorId: string;
  pageUrl: string | null;
  pageTitle: string | null;
  referrer: string | null;
  userAgent: string | null;
  locale: string | null;
  timezone: string | null;
  chatOpen: boolean;
  now: Date;
  /** Journey entries kept (the oldest drop off). */
  journeyLimit: number;
}

/**
 * Record one heartbeat in one statement: insert the visitor, or update the
 * presence; a changed page counts a page view and joins the journey. Fields
 * not sent keep their stored value.
 */
export async function recordPresence(
  sql: Executor,
  workspaceId: number,
  p: PresenceInput,
): Promise<VisitorRow> {
  const step = p.pageUrl ? [{ url: p.pageUrl, at: p.now.toISOString() }] : [];
  const [row] = await sql<VisitorRow[]>`
    INSERT INTO visitors AS v (workspace_id, chatbot_id, visitor_id, page_url, page_title,
      referrer, entry_page, user_agent, locale, timezone, chat_open, page_views, journey,
      first_seen_at, last_seen_at)
    VALUES (${workspaceId}, ${p.chatbotId}, ${p.visitorId}, ${p.pageUrl}, ${p.pageTitle},
      ${p.referrer}, ${p.pageUrl}, ${p.userAgent}, ${p.locale}, ${p.timezone}, ${p.chatOpen},
      ${p.pageUrl ? 1 : 0}, ${sql.json(step)}, ${p.now}, ${p.now})
    ON CONFLICT (chatbot_id, visitor_id) DO UPDATE SET
      page_url = COALESCE(EXCLUDED.page_url, v.page_url),
      page_title = CASE WHEN EXCLUDED.page_url IS NOT NULL THEN EXCLUDED.page_title
                        ELSE v.page_title END,
      referrer = COALESCE(EXCLUDED.referrer, v.referrer),
      entry_page = COALESCE(v.entry_page, EXCLUDED.entry_page),
      user_agent = COALESCE(EXCLUDED.user_agent, v.user_agent),
      locale = COALESCE(EXCLUDED.locale, v.locale),
      timezone = COALESCE(EXCLUDED.timezone, v.timezone),
      chat_open = EXCLUDED.chat_open,
      page_views = v.page_views + CASE
        WHEN EXCLUDED.page_url IS NOT NULL AND EXCLUDED.page_url IS DISTINCT FROM v.page_url
        THEN 1 ELSE 0 END,
      journey = CASE
        WHEN EXCLUDED.page_url IS NOT NULL AND EXCLUDED.page_url IS DISTINCT FROM v.page_url
        THEN (SELECT COALESCE(jsonb_agg(e ORDER BY n), '[]'::jsonb) FROM (
                SELECT e, n FROM jsonb_array_elements(v.journey || EXCLUDED.journey)
                  WITH ORDINALITY AS j(e, n)
                 ORDER BY n DESC LIMIT ${p.journeyLimit}) kept)
        ELSE v.journey END,
      last_seen_at = EXCLUDED.last_seen_at
    WHERE v.workspace_id = EXCLUDED.workspace_id
    RETURNING *`;
  return row!;
}

/** One visitor of a bot, or null. */
export async function findVisitor(
  sql: Executor,
  workspaceId: number,
  chatbotId: number,
  visitorId: string,
): Promise<VisitorRow | null> {
  const [row] = await sql<VisitorRow[]>`
    SELECT * FROM visitors
     WHERE workspace_id = ${workspaceId} AND chatbot_id = ${chatbotId}
       AND visitor_id = ${visitorId}`;
  return row ?? null;
}
