/**
 * The spec's agent inbox row, built from what db/inbox.ts reads. `mine`,
 * `group` and `unread` are the viewer's own; with no viewer (a broadcast to
 * the whole workspace) `mine` is false and `unread` counts every visitor
 * message nobody in particular has read, and clients recompute `mine` from
 * `assigned_user_id`.
 */
import type { Executor } from "../../db/client.ts";
import { type InboxRowData, inboxRowsByIds } from "../../db/inbox.ts";
import type { ConversationStatus, HandoffState } from "../../db/conversations.ts";
import { relativeAge } from "../display_time.ts";
import { isOnline } from "../visitors/online.ts";
import {
  type InboxGroup,
  inboxGroup,
  visitorDisplayName,
  waitingReason,
  waitingSeconds,
} from "./inbox_group.ts";

export interface InboxRow {
  id: string;
  chatbot: string;
  visitor: string;
  email: string | null;
  status: ConversationStatus;
  channel: string;
  last_at: string;
  preview: string | null;
  escalated: boolean;
  unread: number;
  resolution: string | null;
  tags: { id: number; name: string; color: string }[];
  group: InboxGroup;
  handoff_state: HandoffState;
  assigned_to: string | null;
  /**
   * Not in the HTTP row (its schema leaves it out): lets a row broadcast to the
   * whole workspace be read as "mine" by its assignee.
   */
  assigned_user_id: number | null;
  mine: boolean;
  online: boolean;
  waiting_seconds: number | null;
  /** Beyond the spec: why a waiting conversation needs a human (the AI failed, or asked for). */
  waiting_reason: string | null;
}

export interface RowView {
  viewerUserId: number | null;
  now: Date;
  timeZone?: string;
}

export function toInboxRow(d: InboxRowData, view: RowView): InboxRow {
  return {
    id: d.public_id,
    chatbot: d.chatbot,
    visitor: visitorDisplayName(d.visitor_name, d.visitor_id),
    email: d.visitor_email,
    status: d.status,
    channel: d.channel,
    last_at: relativeAge(d.last_message_at, view.now, view.timeZone),
    preview: d.preview,
    escalated: d.handoff_requested_at !== null,
    unread: d.unread,
    resolution: d.resolution,
    tags: d.tags,
    group: inboxGroup(d, view.viewerUserId),
    handoff_state: d.handoff_state,
    assigned_to: d.assigned_to,
    assigned_user_id: d.assigned_user_id,
    mine: view.viewerUserId !== null && d.assigned_user_id === view.viewerUserId,
    online: isOnline(d.visitor_last_seen_at, view.now),
    waiting_seconds: waitingSeconds(d, view.now),
    waiting_reason: waitingReason(d),
  };
}

/** Inbox rows of the given conversations (by internal id), for one viewer or none. */
export async function loadInboxRows(
  sql: Executor,
  input: { workspaceId: number; viewerUserId: number | null; conversationIds: number[] },
  view: Omit<RowView, "viewerUserId"> = { now: new Date() },
): Promise<InboxRow[]> {
  const rows = await inboxRowsByIds(
    sql,
    input.workspaceId,
    input.viewerUserId,
    input.conversationIds,
  );
  return rows.map((d) => toInboxRow(d, { ...view, viewerUserId: input.viewerUserId }));
}
