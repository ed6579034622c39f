/**
 * Everything the agent's open conversation shows, in one statement: the
 * conversation with its bot, assignee and visitor presence, and its messages,
 * notes, events, tags and watchers as JSON arrays. One round trip, whatever
 * the conversation's size (messages are capped at the newest MESSAGE_LIMIT).
 */
import type { Executor } from "./client.ts";
import type { ConversationRow } from "./conversations.ts";
import type { MessageRole } from "./messages.ts";

export const MESSAGE_LIMIT = 500;

export interface ConversationDetail extends ConversationRow {
  chatbot: string;
  chatbot_key: string;
  chatbot_branding: Record<string, unknown>;
  assigned_to: string | null;
  blocked: boolean;
  msg_count: number;
  visitor: {
    page_url: string | null;
    page_title: string | null;
    referrer: string | null;
    entry_page: string | null;
    user_agent: string | null;
    locale: string | null;
    timezone: string | null;
    page_views: number;
    journey: { url: string; at: string | null }[];
    first_seen_at: string;
    last_seen_at: string;
    country: string | null;
  } | null;
  messages: { id: number; role: MessageRole; content: string; created_at: string }[];
  notes: { id: number; body: string; author: string | null; created_at: string }[];
  events: { type: string; source: string; actor: string | null; created_at: string }[];
  tags: { id: number; name: string; color: string; source: string }[];
  watchers: { id: number; name: string }[];
  // Written by the agent's assistant (db/conversation_assist.ts).
  summary: string | null;
  summary_at: Date | null;
  intent: string | null;
  tag_suggestions: { id: number; name: string; confidence: number; reason: string }[];
  /** bigint as text: exact past 2^53. */
  revenue_cents: string | null;
  revenue_currency: string | null;
  revenue_label: string | null;
}

export async function findConversationDetail(
  sql: Executor,
  workspaceId: number,
  publicId: string,
): Promise<ConversationDetail | null> {
  const [row] = await sql<ConversationDetail[]>`
    SELECT c.*, b.name AS chatbot, b.public_key AS chatbot_key, b.branding AS chatbot_branding, u.name AS assigned_to,
      EXISTS (SELECT 1 FROM blocked_visitors bv
               WHERE bv.workspace_id = c.workspace_id AND bv.visitor_id = c.visitor_id) AS blocked,
      (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id)::int AS msg_count,
      (SELECT json_build_object('page_url', v.page_url, 'page_title', v.page_title,
                'referrer', v.referrer, 'entry_page', v.entry_page, 'user_agent', v.user_agent,
                'locale', v.locale, 'timezone', v.timezone, 'page_views', v.page_views,
                'journey', v.journey, 'first_seen_at', v.first_seen_at,
                'last_seen_at', v.last_seen_at, 'country', v.country)
         FROM visitors v WHERE v.chatbot_id = c.chatbot_id AND v.visitor_id = c.visitor_id)
        AS visitor,
      COALESCE((SELECT json_agg(json_build_object('id', m.id, 'role', m.role,
                  'content', m.content, 'created_at', m.created_at) ORDER BY m.id)
         FROM (SELECT id, role, content, created_at FROM messages
                WHERE conversation_id = c.id ORDER BY id DESC LIMIT ${MESSAGE_LIMIT}) m),
        '[]'::json) AS messages,
      COALESCE((SELECT json_agg(json_build_object('id', n.id, 'body', n.body,
                  'author', a.name, 'created_at', n.created_at) ORDER BY n.id)
         FROM conversation_notes n LEFT JOIN users a ON a.id = n.author_user_id
        WHERE n.conversation_id = c.id), '[]'::json) AS notes,
      COALESCE((SELECT json_agg(json_build_object('type', e.type, 'source', e.source,
                  'actor', a.name, 'created_at', e.created_at) ORDER BY e.id)
         FROM conversation_events e LEFT JOIN users a ON a.id = e.actor_user_id
        WHERE e.conversation_id = c.id), '[]'::json) AS events,
      COALESCE((SELECT json_agg(json_build_object('id', t.id, 'name', t.name,
                  'color', t.color, 'source', ct.source) ORDER BY t.name)
         FROM conversation_tags ct JOIN tags t ON t.id = ct.tag_id
        WHERE ct.conversation_id = c.id), '[]'::json) AS tags,
      COALESCE((SELECT json_agg(json_build_object('id', w.user_id, 'name', wu.name)
                  ORDER BY w.created_at)
         FROM conversation_watchers w JOIN users wu ON wu.id = w.user_id
        WHERE w.conversation_id = c.id), '[]'::json) AS watchers
      FROM conversations c
      JOIN chatbots b ON b.id = c.chatbot_id
      LEFT JOIN users u ON u.id = c.assigned_user_id
     WHERE c.workspace_id = ${workspaceId} AND c.public_id = ${publicId}`;
  return row ?? null;
}
