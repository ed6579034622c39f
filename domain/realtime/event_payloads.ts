/**
 * The data of each broadcast (docs/realtime.md), loaded once per event (a
 * message travels in its event and is not read back):
 * agents get the conversation's inbox row, messages and notes; a widget gets
 * only its conversation's state and the messages meant for the visitor.
 */
import type { AppDeps } from "../deps.ts";
import type { Executor } from "../../db/client.ts";
import { inboxRowByPublicId } from "../../db/inbox.ts";
import { findBroadcastNote } from "../../db/realtime_payloads.ts";
import type { ParleyEvent } from "../events.ts";
import { isoWithOffset } from "../widget/widget_message.ts";
import { type InboxRow, toInboxRow } from "../inbox/inbox_rows.ts";
import { timeOfDay } from "../display_time.ts";

export interface ConversationPayloads {
  /**
   * The inbox row as the whole workspace sees it (no viewer: `mine` false,
   * `assigned_user_id` lets each agent's client recompute it).
   */
  row: InboxRow;
  /** What the visitor may see: the state, nothing about agents or tags. */
  widget: { conversation_id: string; status: string; handoff_state: string };
}

export async function conversationPayloads(
  deps: Pick<AppDeps, "sql" | "clock">,
  workspaceId: number,
  conversationId: string,
): Promise<ConversationPayloads | null> {
  // One statement: after every reply this runs ahead of the next request on
  // the embedded database's single connection.
  const data = await inboxRowByPublicId(deps.sql, workspaceId, null, conversationId);
  if (!data) return null;
  return {
    row: toInboxRow(data, { now: deps.clock(), viewerUserId: null }),
    widget: {
      conversation_id: data.public_id,
      status: data.status,
      handoff_state: data.handoff_state,
    },
  };
}

export interface MessagePayload {
  conversation_id: string;
  message: { id: number; role: string; content: string; at: string };
  /** Agent channels: the exact time, for clients showing another zone than UTC. */
  created_at?: string;
}

/** Built from the event itself: the publisher carries the message, so nothing is read back. */
export function messagePayload(
  e: Extract<ParleyEvent, { type: "message.created" }>,
): { agent: MessagePayload; widget: MessagePayload } {
  const createdAt = new Date(e.createdAt);
  const base = { id: e.messageId, role: e.role, content: e.content };
  return {
    // As the agent API shows messages: a time of day (UTC here: a broadcast has no viewer).
    agent: {
      conversation_id: e.conversationId,
      message: { ...base, at: timeOfDay(createdAt) },
      created_at: createdAt.toISOString(),
    },
    widget: {
      conversation_id: e.conversationId,
      message: { ...base, at: isoWithOffset(createdAt) },
    },
  };
}

export async function notePayload(sql: Executor, workspaceId: number, noteId: number) {
  const n = await findBroadcastNote(sql, workspaceId, noteId);
  if (!n) return null;
  return {
    conversation_id: n.conversation_public_id,
    note: { id: n.id, body: n.body, author: n.author, at: timeOfDay(n.created_at) },
    created_at: n.created_at.toISOString(),
  };
}
