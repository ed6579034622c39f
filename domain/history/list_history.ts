/**
 * One page of the workspace's conversation history, newest started first,
 * with the cursor of the next page (null on the last). One statement per page
 * (two with a search: the probe that chooses how to run it).
 */
import type { Executor } from "../../db/client.ts";
import { type HistoryRow, pageHistory } from "../../db/conversation_history.ts";
import {
  decodeCursor,
  encodeCursor,
  type HistoryFilterInput,
  resolveHistoryFilter,
} from "./history_filter.ts";

export interface HistoryItem {
  id: string;
  bot: { key: string; name: string };
  status: "bot" | "agent" | "closed";
  handoff_state: string;
  resolution: string | null;
  visitor: { id: string; name: string | null; email: string | null };
  assigned_to: { id: number; name: string | null } | null;
  tags: { id: number; name: string; color: string }[];
  rating: number | null;
  messages: number;
  preview: string | null;
  started_at: string;
  last_message_at: string;
  resolved_at: string | null;
}

export function historyItem(r: HistoryRow): HistoryItem {
  return {
    id: r.public_id,
    bot: { key: r.bot_key, name: r.bot_name },
    status: r.status,
    handoff_state: r.handoff_state,
    resolution: r.resolution,
    visitor: { id: r.visitor_id, name: r.visitor_name, email: r.visitor_email },
    assigned_to: r.assigned_user_id === null
      ? null
      : { id: r.assigned_user_id, name: r.assigned_to },
    tags: r.tags,
    rating: r.rating,
    messages: r.message_count,
    preview: r.preview,
    started_at: r.created_at.toISOString(),
    last_message_at: r.last_message_at.toISOString(),
    resolved_at: r.resolved_at?.toISOString() ?? null,
  };
}

export async function listHistory(
  sql: Executor,
  workspaceId: number,
  input: HistoryFilterInput & { cursor?: string; per_page: number },
): Promise<{ data: HistoryItem[]; next_cursor: string | null; per_page: number }> {
  const after = input.cursor ? decodeCursor(input.cursor) : null;
  const filter = await resolveHistoryFilter(sql, workspaceId, input);
  const rows = await pageHistory(sql, workspaceId, filter, after, input.per_page + 1);
  const page = rows.slice(0, input.per_page);
  const last = page.at(-1);
  return {
    data: page.map(historyItem),
    next_cursor: rows.length > input.per_page && last
      ? encodeCursor({ startedAt: last.started_key, id: last.id })
      : null,
    per_page: input.per_page,
  };
}
