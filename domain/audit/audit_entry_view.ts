/** An audit row as the dashboard API and its CSV show it. */
import type { AuditRow } from "../../db/audit_log.ts";

export interface AuditEntryView {
  id: number;
  occurred_at: string;
  actor: { user_id: number | null; label: string; token_id: number | null };
  ip: string | null;
  action: string;
  target: { type: string; id: string } | null;
  details: Record<string, unknown>;
}

export function auditEntryView(r: AuditRow): AuditEntryView {
  return {
    id: r.id,
    occurred_at: r.occurred_at.toISOString(),
    actor: { user_id: r.actor_user_id, label: r.actor_label, token_id: r.actor_token_id },
    ip: r.ip,
    action: r.action,
    target: r.target_type === null ? null : { type: r.target_type, id: r.target_id ?? "" },
    details: r.details ?? {},
  };
}
