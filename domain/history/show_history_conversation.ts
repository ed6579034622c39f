/**
 * One conversation of the workspace as the history's transcript shows it,
 * read-only: its messages (the newest MESSAGE_LIMIT), private notes and
 * ownership events, tags, rating and summary, from the one statement the
 * agent's open conversation uses. Another workspace's conversation, or an id
 * that is not a UUID, is 404 like a missing one.
 */
import type { Executor } from "../../db/client.ts";
import { findConversationDetail, MESSAGE_LIMIT } from "../../db/conversation_detail.ts";
import type { MessageRole } from "../../db/messages.ts";
import { NotFound } from "../errors.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const iso = (t: string | Date) => new Date(t).toISOString();

export interface HistoryTranscript {
  id: string;
  bot: { key: string; name: string };
  status: "bot" | "agent" | "closed";
  handoff_state: string;
  resolution: string | null;
  visitor: { id: string; name: string | null; email: string | null; phone: string | null };
  assigned_to: { id: number; name: string | null } | null;
  tags: { id: number; name: string; color: string }[];
  rating: number | null;
  rating_comment: string | null;
  summary: string | null;
  started_at: string;
  last_message_at: string;
  resolved_at: string | null;
  messages_total: number;
  messages_shown_limit: number;
  messages: { id: number; role: MessageRole; content: string; at: string }[];
  notes: { id: number; body: string; author: string | null; at: string }[];
  events: { type: string; source: string; actor: string | null; at: string }[];
}

export async function showHistoryConversation(
  sql: Executor,
  workspaceId: number,
  publicId: string,
): Promise<HistoryTranscript> {
  const c = UUID.test(publicId) ? await findConversationDetail(sql, workspaceId, publicId) : null;
  if (!c) throw new NotFound("Conversation not found.");
  return {
    id: c.public_id,
    bot: { key: c.chatbot_key, name: c.chatbot },
    status: c.status,
    handoff_state: c.handoff_state,
    resolution: c.resolution,
    visitor: {
      id: c.visitor_id,
      name: c.visitor_name,
      email: c.visitor_email,
      phone: c.visitor_phone,
    },
    assigned_to: c.assigned_user_id === null
      ? null
      : { id: c.assigned_user_id, name: c.assigned_to },
    tags: c.tags.map(({ id, name, color }) => ({ id, name, color })),
    rating: c.rating,
    rating_comment: c.rating_comment,
    summary: c.summary,
    started_at: iso(c.created_at),
    last_message_at: iso(c.last_message_at),
    resolved_at: c.resolved_at ? iso(c.resolved_at) : null,
    messages_total: c.msg_count,
    messages_shown_limit: MESSAGE_LIMIT,
    messages: c.messages.map((m) => ({
      id: m.id,
      role: m.role,
      content: m.content,
      at: iso(m.created_at),
    })),
    notes: c.notes.map((n) => ({
      id: n.id,
      body: n.body,
      author: n.author,
      at: iso(n.created_at),
    })),
    events: c.events.map((e) => ({
      type: e.type,
      source: e.source,
      actor: e.actor,
      at: iso(e.created_at),
    })),
  };
}
