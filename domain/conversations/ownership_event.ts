/**
 * The events-log entry a state change writes, named for what an agent reads
 * in the conversation's history: `human_connected` when a person took it,
 * `released`, `resolved`, `reopened`, `handoff_requested`.
 */
import type { ConversationRow } from "../../db/conversations.ts";

export function ownershipEventType(before: ConversationRow, after: ConversationRow): string | null {
  if (before.status !== "closed" && after.status === "closed") {
    return after.resolution === "resolved" ? "resolved" : "closed";
  }
  if (before.status === "closed" && after.status !== "closed") {
    return after.handoff_state === "human_connected" ? "human_connected" : "reopened";
  }
  if (before.handoff_state !== "human_connected" && after.handoff_state === "human_connected") {
    return "human_connected";
  }
  if (before.status === "agent" && after.status === "bot") return "released";
  if (before.handoff_state !== "handoff_pending" && after.handoff_state === "handoff_pending") {
    return "handoff_requested";
  }
  if (before.assigned_user_id !== after.assigned_user_id && after.status === "agent") {
    return after.assigned_user_id === null ? "unassigned" : "assigned";
  }
  return null;
}
