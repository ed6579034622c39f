/**
 * The data of each broadcast (docs/realtime.md), loaded once per event:
 * agents get the conversation's inbox row, messages and notes; a widget gets
 * only its conversation's state and the messages meant for the visitor.
 */
import type { AppDeps } from "../../app/deps.ts";
import type { Executor } from "../../db/client.ts";
import { findConversationByPublicId } from "../../db/conversations.ts";
import { findBroadcastMessage, findBroadcastNote } from "../../db/realtime_payloads.ts";
import { isoWithOffset } from "../widget/widget_message.ts";

export interface ConversationPayloads {
  /** The inbox row, as broadcast to the workspace's agents. */
  row: Record<string, unknown>;
  /** What the visitor may see: the state, nothing about agents or tags. */
  widget: { conversation_id: string; status: string; handoff_state: string };
}

export async function conversationPayloads(
  deps: Pick<AppDeps, "sql" | "clock">,
  workspaceId: number,
  conversationId: string,
): Promise<ConversationPayloads | null> {
  const conv = await findConversationByPublicId(deps.sql, workspaceId, conversationId);
  if (!conv) return null;
  return {
    row: {
      id: conv.public_id,
      status: conv.status,
      handoff_state: conv.handoff_state,
      resolution: conv.resolution,
      email: conv.visitor_email,
      assigned_user_id: conv.assigned_user_id,
    },
    widget: {
      conversation_id: conv.public_id,
      status: conv.status,
      handoff_state: conv.handoff_state,
    },
  };
}

export interface MessagePayload {
  conversation_id: string;
  message: { id: number; role: string; content: string; at: string };
}

export async function messagePayload(
  sql: Executor,
  workspaceId: number,
  messageId: number,
): Promise<{ agent: MessagePayload; widget: MessagePayload } | null> {
  const m = await findBroadcastMessage(sql, workspaceId, messageId);
  if (!m) return null;
  const base = { id: m.id, role: m.role, content: m.content };
  return {
    agent: {
      conversation_id: m.conversation_public_id,
      message: { ...base, at: isoWithOffset(m.created_at) },
    },
    widget: {
      conversation_id: m.conversation_public_id,
      message: { ...base, at: isoWithOffset(m.created_at) },
    },
  };
}

export async function notePayload(sql: Executor, workspaceId: number, noteId: number) {
  const n = await findBroadcastNote(sql, workspaceId, noteId);
  if (!n) return null;
  return {
    conversation_id: n.conversation_public_id,
    note: { id: n.id, body: n.body, author: n.author, at: isoWithOffset(n.created_at) },
  };
}
