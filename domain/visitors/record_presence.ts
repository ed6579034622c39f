/**
 * One heartbeat of a visitor: where they are, whether the chat is open, when
 * last seen. Feeds the agents' live visitors list and the conversation's
 * journey; `visitor.seen` lets realtime subscribers update at once.
 */
import type { AppDeps } from "../deps.ts";
import { recordPresence, type VisitorRow } from "../../db/visitors.ts";
import { publishEvent } from "../events.ts";
import { VISITOR_ONLINE_SECONDS } from "./online.ts";

/** Journey entries kept per visitor: the recent path matters, the full history does not. */
export const JOURNEY_LIMIT = 50;

export interface PresenceReport {
  workspaceId: number;
  chatbotId: number;
  visitorId: string;
  pageUrl?: string;
  pageTitle?: string;
  referrer?: string;
  userAgent?: string | null;
  locale?: string;
  timezone?: string;
  chatOpen: boolean;
  country?: string | null;
  /** The bot's `behavior_tracking` flag: off, the current page only, no history. */
  trackBehavior: boolean;
}

export async function recordVisitorPresence(
  deps: AppDeps,
  report: PresenceReport,
): Promise<VisitorRow> {
  const now = deps.clock();
  const row = await recordPresence(deps.sql, report.workspaceId, {
    chatbotId: report.chatbotId,
    visitorId: report.visitorId,
    pageUrl: report.pageUrl || null,
    pageTitle: report.pageTitle || null,
    referrer: report.referrer || null,
    userAgent: report.userAgent?.slice(0, 512) || null,
    locale: report.locale || null,
    timezone: report.timezone || null,
    chatOpen: report.chatOpen,
    now,
    journeyLimit: JOURNEY_LIMIT,
    country: report.country ?? null,
    visitGapSeconds: VISITOR_ONLINE_SECONDS,
    trackBehavior: report.trackBehavior,
  });
  await publishEvent(deps, {
    type: "visitor.seen",
    workspaceId: report.workspaceId,
    chatbotId: report.chatbotId,
    visitorId: report.visitorId,
    pageUrl: row.page_url,
    chatOpen: row.chat_open,
    // First heartbeat of this visitor: what "visitor arrived" alerts listen for.
    arrived: row.first_seen_at.getTime() === row.last_seen_at.getTime(),
  });
  return row;
}
