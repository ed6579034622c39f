/**
 * One page of a workspace's audit log, newest first, filtered, with the
 * cursor of the next page (null on the last). The workspace comes from the
 * caller's token: another workspace's rows are never in reach.
 */
import type { Executor } from "../../db/client.ts";
import { pageAuditEntries } from "../../db/audit_log.ts";
import {
  type AuditFilterInput,
  decodeAuditCursor,
  encodeAuditCursor,
  resolveAuditFilter,
} from "./audit_filter.ts";
import { type AuditEntryView, auditEntryView } from "./audit_entry_view.ts";

export async function listAuditLog(
  sql: Executor,
  workspaceId: number,
  input: AuditFilterInput & { cursor?: string; per_page: number },
): Promise<{ data: AuditEntryView[]; next_cursor: string | null; per_page: number }> {
  const filter = resolveAuditFilter(input);
  const after = input.cursor ? decodeAuditCursor(input.cursor) : null;
  const rows = await pageAuditEntries(sql, workspaceId, filter, after, input.per_page + 1);
  const page = rows.slice(0, input.per_page);
  const last = page.at(-1);
  return {
    data: page.map(auditEntryView),
    next_cursor: rows.length > input.per_page && last
      ? encodeAuditCursor({ occurredAt: last.occurred_at, id: last.id })
      : null,
    per_page: input.per_page,
  };
}
