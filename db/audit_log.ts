/** audit_log: who did what, when, from where, on which record (never a secret). */
import type { Executor } from "./client.ts";

export interface AuditEntry {
  workspaceId: number | null;
  occurredAt: Date;
  actorUserId: number | null;
  actorTokenId: number | null;
  actorLabel: string;
  ip: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
}

export async function insertAuditEntry(sql: Executor, e: AuditEntry): Promise<void> {
  await sql`
    INSERT INTO audit_log (workspace_id, occurred_at, actor_user_id, actor_token_id, actor_label,
                           ip, action, target_type, target_id, details)
    VALUES (${e.workspaceId}, ${e.occurredAt}, ${e.actorUserId}, ${e.actorTokenId},
            ${e.actorLabel}, ${e.ip}, ${e.action}, ${e.targetType}, ${e.targetId},
            ${sql.json(e.details as never)})`;
}

export interface AuditRow {
  id: number;
  occurred_at: Date;
  actor_user_id: number | null;
  actor_token_id: number | null;
  actor_label: string;
  ip: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: Record<string, unknown>;
}

export interface AuditFilter {
  /** Rows whose actor is this user. */
  userId?: number;
  action?: string;
  /** occurred_at >= from. */
  from?: Date;
  /** occurred_at < until. */
  until?: Date;
}

/** A row's place in the newest-first order, for the next page. */
export interface AuditKey {
  occurredAt: Date;
  id: number;
}

/** One workspace's rows, newest first, after `after` (exclusive). */
export async function pageAuditEntries(
  sql: Executor,
  workspaceId: number,
  filter: AuditFilter,
  after: AuditKey | null,
  limit: number,
): Promise<AuditRow[]> {
  return await sql<AuditRow[]>`
    SELECT id, occurred_at, actor_user_id, actor_token_id, actor_label, ip, action,
           target_type, target_id, details
      FROM audit_log
     WHERE workspace_id = ${workspaceId}
       ${filter.userId === undefined ? sql`` : sql`AND actor_user_id = ${filter.userId}`}
       ${filter.action === undefined ? sql`` : sql`AND action = ${filter.action}`}
       ${filter.from === undefined ? sql`` : sql`AND occurred_at >= ${filter.from}`}
       ${filter.until === undefined ? sql`` : sql`AND occurred_at < ${filter.until}`}
       ${
    after === null
      ? sql``
      : sql`AND (occurred_at, id) < (${after.occurredAt}::timestamptz, ${after.id}::bigint)`
  }
     ORDER BY occurred_at DESC, id DESC
     LIMIT ${limit}`;
}

/**
 * Delete rows that occurred before `before`, at most `batch` of them;
 * answers how many went, per workspace (null: rows of no workspace).
 */
export async function deleteAuditEntriesBefore(
  sql: Executor,
  before: Date,
  batch: number,
): Promise<{ workspace_id: number | null; count: number }[]> {
  return await sql<{ workspace_id: number | null; count: number }[]>`
    WITH gone AS (
      DELETE FROM audit_log
       WHERE id IN (SELECT id FROM audit_log WHERE occurred_at < ${before}
                     ORDER BY id LIMIT ${batch})
      RETURNING workspace_id)
    SELECT workspace_id, count(*)::int AS count FROM gone GROUP BY workspace_id`;
}
