/**
 * Which inbox section a conversation belongs to, for one agent. Each open
 * conversation is in exactly one of waiting, mine, team or ai; a closed one
 * is resolved. The same rules are the SQL filters of db/inbox.ts.
 */
import type { ConversationStatus, HandoffState } from "../../db/conversations.ts";

export type InboxGroup = "waiting" | "mine" | "team" | "ai" | "resolved";

export function inboxGroup(
  c: { status: ConversationStatus; handoff_state: HandoffState; assigned_user_id: number | null },
  viewerUserId: number | null,
): InboxGroup {
  if (c.status === "closed") return "resolved";
  if (c.status === "agent") {
    return viewerUserId !== null && c.assigned_user_id === viewerUserId ? "mine" : "team";
  }
  return c.handoff_state === "handoff_pending" ? "waiting" : "ai";
}

/** Seconds a visitor has waited for a person, while they wait; null otherwise. */
export function waitingSeconds(
  c: { status: ConversationStatus; handoff_state: HandoffState; handoff_requested_at: Date | null },
  now: Date,
): number | null {
  if (c.status !== "bot" || c.handoff_state !== "handoff_pending" || !c.handoff_requested_at) {
    return null;
  }
  return Math.max(0, Math.floor((now.getTime() - c.handoff_requested_at.getTime()) / 1000));
}

/**
 * Why a waiting conversation waits for a person: the AI's failure to answer
 * (the visitor saw an error), else the visitor's own request; null when the
 * conversation is not waiting.
 */
export function waitingReason(
  c: { status: ConversationStatus; handoff_state: HandoffState; ai_failure: string | null },
): string | null {
  if (c.status !== "bot" || c.handoff_state !== "handoff_pending") return null;
  return c.ai_failure ?? "The visitor asked for a person.";
}

/** Ids up to this length are shown whole: an integration's `api-visitor-1` stays readable. */
const WHOLE_ID_CHARS = 16;

/**
 * How an inbox names a visitor who gave no name: stable, short, from the
 * widget's id: a short id whole, a long generated one (a UUID) by its last six
 * characters, which cut a short readable id mid-word ("itor-1").
 */
export function visitorDisplayName(name: string | null, visitorId: string): string {
  const id = visitorId.length <= WHOLE_ID_CHARS ? visitorId : visitorId.slice(-6);
  return name?.trim() || `Visitor ${id}`;
}
