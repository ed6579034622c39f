/**
 * How the widget sees a message: `{id, role, content, at}` with `at` in
 * ISO 8601 with an explicit offset (SPEC: "Widget: ISO 8601 with offset").
 */
import type { WidgetMessageRow } from "../../db/widget_conversations.ts";

export interface WidgetMessage {
  id: number;
  role: "visitor" | "assistant" | "agent";
  content: string;
  at: string;
}

/** `2026-11-21T07:00:00.123+00:00`: UTC, written as an offset rather than `Z`. */
export function isoWithOffset(date: Date): string {
  return date.toISOString().replace(/Z$/, "+00:00");
}

export function toWidgetMessage(row: WidgetMessageRow): WidgetMessage {
  return { id: row.id, role: row.role, content: row.content, at: isoWithOffset(row.created_at) };
}
