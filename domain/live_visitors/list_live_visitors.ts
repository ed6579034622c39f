/**
 * Everyone browsing the workspace's sites now, from widget heartbeats, chat
 * opened or not: a visitor stays listed while heartbeats arrive and leaves
 * VISITOR_ONLINE_SECONDS after the last one (the widget beats every 15 s even
 * with the chat closed). Most recently seen first.
 */
import type { Executor } from "../../db/client.ts";
import { listLiveVisitors, liveVisitorsEnabled } from "../../db/visitors.ts";
import { describeDevice } from "../visitors/device_info.ts";
import { VISITOR_ONLINE_SECONDS } from "../visitors/online.ts";

/** How often an agent app should refresh the list; a heartbeat is at most 15 s old. */
export const LIVE_POLL_SECONDS = 10;
export const LIVE_LIMIT = { min: 1, max: 200, default: 100 } as const;

export interface LiveVisitor {
  id: string;
  chatbot: { public_key: string; name: string };
  page: string | null;
  page_title: string | null;
  page_views: number;
  time_on_site_seconds: number;
  device: string | null;
  browser: string | null;
  os: string | null;
  country: string | null;
  chat_open: boolean;
  has_conversation: boolean;
  conversation_id: string | null;
  last_seen_seconds: number;
}

export interface LiveVisitors {
  enabled: boolean;
  poll_seconds: number;
  timeout_seconds: number;
  visitors: LiveVisitor[];
}

export function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return LIVE_LIMIT.default;
  return Math.min(LIVE_LIMIT.max, Math.max(LIVE_LIMIT.min, Math.trunc(limit)));
}

export async function listLive(
  sql: Executor,
  input: { workspaceId: number; limit?: number; now: Date },
): Promise<LiveVisitors> {
  const since = new Date(input.now.getTime() - VISITOR_ONLINE_SECONDS * 1000);
  const [enabled, rows] = await Promise.all([
    liveVisitorsEnabled(sql, input.workspaceId),
    listLiveVisitors(sql, input.workspaceId, since, clampLimit(input.limit)),
  ]);
  const seconds = (from: Date) =>
    Math.max(0, Math.floor((input.now.getTime() - from.getTime()) / 1000));
  return {
    enabled,
    poll_seconds: LIVE_POLL_SECONDS,
    timeout_seconds: VISITOR_ONLINE_SECONDS,
    visitors: rows.map((r) => ({
      id: r.visitor_id,
      chatbot: { public_key: r.bot_public_key, name: r.bot_name },
      page: r.page_url,
      page_title: r.page_title,
      page_views: r.page_views,
      time_on_site_seconds: seconds(r.visit_started_at ?? r.first_seen_at),
      ...describeDevice(r.user_agent),
      country: r.country,
      chat_open: r.chat_open,
      has_conversation: r.conversation_id !== null,
      conversation_id: r.conversation_id,
      last_seen_seconds: seconds(r.last_seen_at),
    })),
  };
}
