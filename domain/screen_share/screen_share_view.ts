/**
 * A screen share as the agent API and the realtime events show it
 * (docs/agent-api.md, docs/realtime.md): its state, the times, and who ended it.
 */
import type { ScreenShareRow } from "../../db/screen_shares.ts";

export interface ScreenShareView {
  id: number;
  /** `requested` (waiting for the visitor), `active`, `declined` or `ended`. */
  state: ScreenShareRow["state"];
  requested_at: string;
  started_at: string | null;
  ended_at: string | null;
  /** `visitor`, `agent`, `closed` (the conversation closed) or `left` (the visitor left the page). */
  ended_by: ScreenShareRow["ended_by"];
}

export function screenShareView(row: ScreenShareRow): ScreenShareView {
  return {
    id: Number(row.id),
    state: row.state,
    requested_at: row.requested_at.toISOString(),
    started_at: row.started_at?.toISOString() ?? null,
    ended_at: row.ended_at?.toISOString() ?? null,
    ended_by: row.ended_by,
  };
}

export const SCREEN_SHARE_OFF =
  "Screen sharing is turned off for this conversation's bot (branding screen_share).";
export const CONVERSATION_CLOSED = "The conversation is closed: screen sharing needs an open one.";
