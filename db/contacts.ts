/**
 * The contacts table (migration 0245): visitors who left an identity, kept
 * by a trigger on conversations. Listed newest first, keyset-paged on id
 * (contacts_workspace_idx); searched by part of a name or an e-mail address
 * (contacts_search_idx, trigrams). Per-contact figures are read for the page
 * shown only, through the conversations' (chatbot_id, visitor_id) index.
 */
import type { Executor } from "./client.ts";

export interface ContactListRow {
  id: number;
  bot_key: string;
  bot_name: string;
  visitor_id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  user_id: string | null;
  identified_at: Date;
  conversations: number;
  first_seen_at: Date | null;
  last_seen_at: Date | null;
  rating: number | null;
  country: string | null;
  user_agent: string | null;
  page_url: string | null;
}

/** `%`, `_` and `\` typed in a search are letters, not patterns. */
function likePattern(q: string): string {
  return `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export async function pageContacts(
  sql: Executor,
  workspaceId: number,
  opts: { q?: string; before?: number; limit: number; id?: number },
): Promise<ContactListRow[]> {
  const q = opts.q?.trim();
  return await sql<ContactListRow[]>`
    SELECT k.id, b.public_key AS bot_key, b.name AS bot_name, k.visitor_id, k.name, k.email,
           k.phone, k.user_id, k.identified_at, s.conversations, least(s.first_at, v.first_seen_at) AS first_seen_at,
           greatest(s.last_at, v.last_seen_at) AS last_seen_at, s.rating, v.country,
           v.user_agent, v.page_url
      FROM contacts k
      JOIN chatbots b ON b.id = k.chatbot_id
      LEFT JOIN visitors v ON v.chatbot_id = k.chatbot_id AND v.visitor_id = k.visitor_id
      CROSS JOIN LATERAL (
        SELECT count(*)::int AS conversations,
               min(c.created_at) AS first_at,
               max(c.last_message_at) AS last_at,
               round(avg(c.rating), 1)::float8 AS rating
          FROM conversations c
         WHERE c.chatbot_id = k.chatbot_id AND c.visitor_id = k.visitor_id) s
     WHERE k.workspace_id = ${workspaceId}
       ${opts.id !== undefined ? sql`AND k.id = ${opts.id}` : sql``}
       ${opts.before !== undefined ? sql`AND k.id < ${opts.before}` : sql``}
       ${
    q
      ? sql`AND lower(coalesce(k.name, '') || ' ' || coalesce(k.email, '')) LIKE ${likePattern(q)}`
      : sql``
  }
     ORDER BY k.id DESC
     LIMIT ${opts.limit}`;
}

export interface ContactConversationRow {
  public_id: string;
  status: string;
  visitor_email: string | null;
  rating: number | null;
  rating_comment: string | null;
  messages: number;
  created_at: Date;
  last_message_at: Date;
}

/** A contact's conversations, newest first (a visitor has few). */
export async function contactConversations(
  sql: Executor,
  workspaceId: number,
  contactId: number,
): Promise<ContactConversationRow[]> {
  return await sql<ContactConversationRow[]>`
    SELECT c.public_id::text, c.status, c.visitor_email, c.rating, c.rating_comment,
           (SELECT count(*)::int FROM messages m WHERE m.conversation_id = c.id) AS messages,
           c.created_at, c.last_message_at
      FROM contacts k
      JOIN conversations c ON c.chatbot_id = k.chatbot_id AND c.visitor_id = k.visitor_id
     WHERE k.workspace_id = ${workspaceId} AND k.id = ${contactId}
     ORDER BY c.created_at DESC, c.id DESC`;
}

export interface ContactVisitRow {
  page_url: string | null;
  page_title: string | null;
  entry_page: string | null;
  referrer: string | null;
  journey: unknown;
  user_agent: string | null;
  locale: string | null;
  timezone: string | null;
  country: string | null;
  page_views: number;
  first_seen_at: Date;
  last_seen_at: Date;
}

/** What the widget heartbeat stored about the contact's visits (null: never seen by it). */
export async function contactVisit(
  sql: Executor,
  workspaceId: number,
  contactId: number,
): Promise<ContactVisitRow | null> {
  const [row] = await sql<ContactVisitRow[]>`
    SELECT v.page_url, v.page_title, v.entry_page, v.referrer, v.journey, v.user_agent, v.locale,
           v.timezone, v.country, v.page_views, v.first_seen_at, v.last_seen_at
      FROM contacts k
      JOIN visitors v ON v.chatbot_id = k.chatbot_id AND v.visitor_id = k.visitor_id
     WHERE k.workspace_id = ${workspaceId} AND k.id = ${contactId}`;
  return row ?? null;
}

/** The contact of a conversation's visitor (null: the visitor left no identity). */
export async function contactOfConversation(
  sql: Executor,
  workspaceId: number,
  publicId: string,
): Promise<number | null> {
  const [row] = await sql<{ id: number }[]>`
    SELECT k.id FROM conversations c
      JOIN contacts k ON k.chatbot_id = c.chatbot_id AND k.visitor_id = c.visitor_id
     WHERE c.workspace_id = ${workspaceId} AND c.public_id::text = ${publicId}`;
  return row ? Number(row.id) : null;
}
