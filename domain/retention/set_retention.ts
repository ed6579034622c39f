/**
 * The workspace's retention period (docs/data-protection.md#retention): off
 * (null, the default) or 30 days to 10 years. Changed with its audit row in
 * one transaction; the next retention run applies it.
 */
import type { AppDeps } from "../deps.ts";
import { readRetentionDays, writeRetentionDays } from "../../db/retention.ts";
import { type AuditActor, recordAudit } from "../audit/record_audit.ts";
import { Invalid } from "../errors.ts";

export const MIN_RETENTION_DAYS = 30;
export const MAX_RETENTION_DAYS = 3650;

export async function setRetention(
  deps: Pick<AppDeps, "sql" | "clock">,
  workspaceId: number,
  days: number | null,
  actor: AuditActor,
): Promise<{ retention_days: number | null }> {
  if (
    days !== null &&
    !(Number.isInteger(days) && days >= MIN_RETENTION_DAYS && days <= MAX_RETENTION_DAYS)
  ) {
    throw Invalid.field(
      "retention_days",
      `The retention_days must be a whole number of days between ${MIN_RETENTION_DAYS} and ${MAX_RETENTION_DAYS}, or null.`,
    );
  }
  await deps.sql.begin(async (tx) => {
    const before = await readRetentionDays(tx, workspaceId);
    await writeRetentionDays(tx, workspaceId, days);
    await recordAudit(tx, {
      workspaceId,
      actor,
      action: "workspace.settings_changed",
      target: { type: "workspace", id: workspaceId },
      details: { setting: "retention_days", from: before, to: days },
      now: deps.clock(),
    });
  });
  return { retention_days: days };
}
