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
