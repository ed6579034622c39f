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
  country: string | null;
  visit_started_at: Date | null;
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
  /** ISO 3166 code from a trusted proxy's geo header, when known. */
  country?: string | null;
  /** A silence longer than this starts a new visit. */
  visitGapSeconds?: number;
  /**
   * The bot's `behavior_tracking`: off, only the current page is kept (no
   * journey, page views, entry page or referrer; any stored history is cleared).
   */
  trackBehavior?: boolean;
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
  const track = p.trackBehavior ?? true;
  const step = track && p.pageUrl ? [{ url: p.pageUrl, at: p.now.toISOString() }] : [];
  const referrer = track ? p.referrer : null;
  const entryPage = track ? p.pageUrl : null;
  const [row] = await sql<VisitorRow[]>`
    INSERT INTO visitors AS v (workspace_id, chatbot_id, visitor_id, page_url, page_title,
      referrer, entry_page, user_agent, locale, timezone, chat_open, page_views, journey,
      first_seen_at, last_seen_at, country, visit_started_at)
    VALUES (${workspaceId}, ${p.chatbotId}, ${p.visitorId}, ${p.pageUrl}, ${p.pageTitle},
      ${referrer}, ${entryPage}, ${p.userAgent}, ${p.locale}, ${p.timezone}, ${p.chatOpen},
      ${step.length}, ${sql.json(step)}, ${p.now}, ${p.now}, ${p.country ?? null}, ${p.now})
    ON CONFLICT (chatbot_id, visitor_id) DO UPDATE SET
      page_url = COALESCE(EXCLUDED.page_url, v.page_url),
      page_title = CASE WHEN EXCLUDED.page_url IS NOT NULL THEN EXCLUDED.page_title
                        ELSE v.page_title END,
      referrer = CASE WHEN ${track} THEN COALESCE(EXCLUDED.referrer, v.referrer) END,
      entry_page = CASE WHEN ${track} THEN COALESCE(v.entry_page, EXCLUDED.entry_page) END,
      user_agent = COALESCE(EXCLUDED.user_agent, v.user_agent),
      locale = COALESCE(EXCLUDED.locale, v.locale),
      timezone = COALESCE(EXCLUDED.timezone, v.timezone),
      chat_open = EXCLUDED.chat_open,
      page_views = CASE WHEN NOT ${track} THEN 0 ELSE v.page_views + CASE
        WHEN EXCLUDED.page_url IS NOT NULL AND EXCLUDED.page_url IS DISTINCT FROM v.page_url
        THEN 1 ELSE 0 END END,
      journey = CASE
        WHEN NOT ${track} THEN '[]'::jsonb
        WHEN EXCLUDED.page_url IS NOT NULL AND EXCLUDED.page_url IS DISTINCT FROM v.page_url
        THEN (SELECT COALESCE(jsonb_agg(e ORDER BY n), '[]'::jsonb) FROM (
                SELECT e, n FROM jsonb_array_elements(v.journey || EXCLUDED.journey)
                  WITH ORDINALITY AS j(e, n)
                 ORDER BY n DESC LIMIT ${p.journeyLimit}) kept)
        ELSE v.journey END,
      last_seen_at = EXCLUDED.last_seen_at,
      country = COALESCE(EXCLUDED.country, v.country),
      visit_started_at = CASE
        WHEN v.last_seen_at < EXCLUDED.last_seen_at - make_interval(secs => ${
    p.visitGapSeconds ?? 45
  })
        THEN EXCLUDED.last_seen_at ELSE COALESCE(v.visit_started_at, v.first_seen_at) END
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

export interface LiveVisitorRow {
  visitor_id: string;
  bot_public_key: string;
  bot_name: string;
  page_url: string | null;
  page_title: string | null;
  page_views: number;
  user_agent: string | null;
  country: string | null;
  chat_open: boolean;
  first_seen_at: Date;
  visit_started_at: Date | null;
  last_seen_at: Date;
  conversation_id: string | null;
}

/**
 * Visitors seen since `since`, most recent first, each with their open
 * conversation on that bot: the page of visitors first (the live index stops
 * after `limit` rows), then their open conversations in one join and one
 * sort, not a sorted probe per row (a sort per row cost 0.5 ms in PGlite).
 */
export async function listLiveVisitors(
  sql: Executor,
  workspaceId: number,
  since: Date,
  limit: number,
): Promise<LiveVisitorRow[]> {
  return await sql<LiveVisitorRow[]>`
    WITH live AS (
      SELECT chatbot_id, visitor_id, page_url, page_title, page_views, user_agent, country,
             chat_open, first_seen_at, visit_started_at, last_seen_at
        FROM visitors
       WHERE workspace_id = ${workspaceId} AND last_seen_at >= ${since}
         -- A bot with live visitors off: its visitors never appear here.
         AND chatbot_id IN (SELECT id FROM chatbots WHERE workspace_id = ${workspaceId}
                               AND branding->'live_visitors' IS DISTINCT FROM 'false'::jsonb)
       ORDER BY last_seen_at DESC, visitor_id
       LIMIT ${limit}),
    open AS (
      SELECT DISTINCT ON (c.chatbot_id, c.visitor_id) c.chatbot_id, c.visitor_id, c.public_id
        FROM live l
        JOIN conversations c ON c.chatbot_id = l.chatbot_id AND c.visitor_id = l.visitor_id
       WHERE c.workspace_id = ${workspaceId} AND c.status <> 'closed'
       ORDER BY c.chatbot_id, c.visitor_id, c.last_message_at DESC, c.id DESC)
    SELECT v.visitor_id, b.public_key AS bot_public_key, b.name AS bot_name, v.page_url,
           v.page_title, v.page_views, v.user_agent, v.country, v.chat_open, v.first_seen_at,
           v.visit_started_at, v.last_seen_at, o.public_id AS conversation_id
      FROM live v
      JOIN chatbots b ON b.id = v.chatbot_id
      LEFT JOIN open o ON o.chatbot_id = v.chatbot_id AND o.visitor_id = v.visitor_id
     ORDER BY v.last_seen_at DESC, v.visitor_id`;
}

/** Whether any active bot of the workspace has the live visitors feature on (default on). */
export async function liveVisitorsEnabled(sql: Executor, workspaceId: number): Promise<boolean> {
  const [row] = await sql<{ on: boolean }[]>`
    SELECT EXISTS (
      SELECT 1 FROM chatbots
       WHERE workspace_id = ${workspaceId} AND is_active
         AND branding->'live_visitors' IS DISTINCT FROM 'false'::jsonb) AS on`;
  return row!.on;
}

/**
 * The most recently seen row of a visitor id in the workspace (any bot with
 * the live visitors feature on: the others' visitors are never listed nor
 * invited), or null; found through the primary key, one probe per bot.
 */
export async function findLatestVisitor(
  sql: Executor,
  workspaceId: number,
  visitorId: string,
): Promise<VisitorRow | null> {
  const [row] = await sql<VisitorRow[]>`
    SELECT * FROM visitors
     WHERE chatbot_id IN (SELECT id FROM chatbots WHERE workspace_id = ${workspaceId}
                             AND branding->'live_visitors' IS DISTINCT FROM 'false'::jsonb)
       AND workspace_id = ${workspaceId} AND visitor_id = ${visitorId}
     ORDER BY last_seen_at DESC LIMIT 1`;
  return row ?? null;
}
