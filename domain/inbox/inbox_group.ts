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

/** How an inbox names a visitor who gave no name: stable, short, from the widget's id. */
export function visitorDisplayName(name: string | null, visitorId: string): string {
  return name?.trim() || `Visitor ${visitorId.slice(-6)}`;
}
