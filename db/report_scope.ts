/**
 * What a report covers: one workspace, a period [since, until), and the
 * optional bot, agent and tag filters, all applied to the conversation a
 * row belongs to (alias `c`). Shared by the report's query modules.
 */
import type { Executor } from "./client.ts";

export interface ReportScope {
  workspaceId: number;
  since: Date;
  until: Date;
  chatbotId?: number;
  /** The conversation's assigned member. */
  assigneeId?: number;
  tagId?: number;
}

/** `c.workspace_id = … AND` the filters: the conversations a report may count. */
export function conversationsInScope(sql: Executor, s: ReportScope) {
  const parts = [sql`c.workspace_id = ${s.workspaceId}`];
  if (s.chatbotId !== undefined) parts.push(sql`c.chatbot_id = ${s.chatbotId}`);
  if (s.assigneeId !== undefined) parts.push(sql`c.assigned_user_id = ${s.assigneeId}`);
  if (s.tagId !== undefined) {
    parts.push(sql`EXISTS (SELECT 1 FROM conversation_tags ct
                            WHERE ct.conversation_id = c.id AND ct.tag_id = ${s.tagId})`);
  }
  return parts.reduce((acc, p) => sql`${acc} AND ${p}`);
}

/** Whether a filter narrows the conversations (else whole-workspace indexes suffice). */
export function isFiltered(s: ReportScope): boolean {
  return s.chatbotId !== undefined || s.assigneeId !== undefined || s.tagId !== undefined;
}

const QUARTER_MS = 15 * 60_000;
/** Since 1980 every zone's offset has been whole quarters; older ones had seconds (LMT). */
const QUARTER_OFFSETS_SINCE = Date.UTC(1980, 0, 1);

/**
 * Whether the period is made of whole quarter hours that each lie in one local
 * hour; else (a period before 1980 in a zone of its time) messages are counted
 * one by one.
 */
export function quarterAligned(s: ReportScope): boolean {
  return s.since.getTime() % QUARTER_MS === 0 && s.until.getTime() % QUARTER_MS === 0 &&
    s.since.getTime() >= QUARTER_OFFSETS_SINCE;
}
