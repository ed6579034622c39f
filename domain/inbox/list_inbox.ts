/**
 * The agent inbox: one section's rows (at most LIST_LIMIT), every section's
 * count over the whole inbox, and optionally one conversation opened in
 * `active` (marked read first, so the counts already reflect it).
 */
import type { AppDeps } from "../deps.ts";
import { countInbox, type InboxFilter, pageInbox } from "../../db/inbox.ts";
import type { ActiveConversation } from "./active_conversation.ts";
import { type InboxRow, toInboxRow } from "./inbox_rows.ts";
import { openConversation } from "./open_conversation.ts";

export const LIST_LIMIT = 60;

export interface InboxView {
  conversations: InboxRow[];
  counts: { all: number; ai: number; human: number; resolved: number; unread: number };
  groups: { waiting: number; mine: number; team: number; ai: number; resolved: number };
  listed: number;
  list_limit: number;
  active: ActiveConversation | null;
}

export async function listInbox(
  deps: AppDeps,
  input: {
    workspaceId: number;
    userId: number;
    filter: InboxFilter;
    conversationId?: string;
    timeZone?: string;
  },
): Promise<InboxView> {
  const active = input.conversationId
    ? await openConversation(deps, {
      workspaceId: input.workspaceId,
      userId: input.userId,
      conversationId: input.conversationId,
      timeZone: input.timeZone,
    })
    : null;
  const now = deps.clock();
  const [counts, rows] = await Promise.all([
    countInbox(deps.sql, input.workspaceId, input.userId),
    pageInbox(deps.sql, input.workspaceId, input.userId, input.filter, LIST_LIMIT),
  ]);
  const view = { viewerUserId: input.userId, now, timeZone: input.timeZone };
  return {
    conversations: rows.map((d) => toInboxRow(d, view)),
    counts: {
      all: counts.all,
      ai: counts.ai,
      human: counts.human,
      resolved: counts.resolved,
      unread: counts.unread,
    },
    groups: {
      waiting: counts.waiting,
      mine: counts.mine,
      team: counts.team,
      ai: counts.ai_group,
      resolved: counts.resolved,
    },
    listed: rows.length,
    list_limit: LIST_LIMIT,
    active,
  };
}
