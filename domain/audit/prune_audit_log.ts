/**
 * Retention: audit rows older than AUDIT_RETENTION_DAYS are deleted, and each
 * workspace that lost rows gets one `audit.pruned` row with the count, in the
 * same transaction. Several instances may sweep at once: the first takes a
 * transaction-scoped advisory lock and the others skip their turn, and once
 * it commits there is nothing old left, so a sweep's deletion and its record
 * happen once.
 */
import type { Sql } from "../../db/client.ts";
import { deleteAuditEntriesBefore } from "../../db/audit_log.ts";
import { recordAudit, systemActor } from "./record_audit.ts";

/** The advisory lock of the sweep (beside the token and seat locks, 72410xx). */
const PRUNE_LOCK = 7241010;
/** Rows deleted by one sweep at most: a backlog goes over the next sweeps, in short transactions. */
export const PRUNE_BATCH = 20_000;
const DAY_MS = 86_400_000;

/** Rows deleted by this sweep, or null when another instance was sweeping. */
export async function pruneAuditLog(
  sql: Sql,
  retentionDays: number,
  now: Date,
): Promise<number | null> {
  const before = new Date(now.getTime() - retentionDays * DAY_MS);
  return await sql.begin(async (tx) => {
    const [lock] = await tx<{ locked: boolean }[]>`
      SELECT pg_try_advisory_xact_lock(${PRUNE_LOCK}) AS locked`;
    if (!lock?.locked) return null;
    const gone = await deleteAuditEntriesBefore(tx, before, PRUNE_BATCH);
    let total = 0;
    for (const { workspace_id: workspaceId, count } of gone) {
      total += count;
      if (workspaceId === null) continue;
      await recordAudit(tx, {
        workspaceId,
        actor: systemActor("retention"),
        action: "audit.pruned",
        details: { count, retention_days: retentionDays, before: before.toISOString() },
        now,
      });
    }
    return total;
  });
}
