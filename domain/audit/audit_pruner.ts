/**
 * The background worker of the audit log's retention (app/workers.ts): every
 * AUDIT_PRUNE_SECONDS it sweeps once (prune_audit_log.ts), one sweep at a
 * time per instance and one across instances (the sweep's lock).
 */
import type { AppDeps, Worker } from "../deps.ts";
import { describeError } from "../../app/logger.ts";
import { pruneAuditLog } from "./prune_audit_log.ts";

export function startAuditPruner(deps: AppDeps): Worker {
  const days = deps.config.auditRetentionDays;
  let sweeping: Promise<void> | null = null;
  const timer = setInterval(() => {
    sweeping ??= pruneAuditLog(deps.sql, days, deps.clock())
      .then((count) => {
        if (count) deps.log.info("audit log pruned", { count, retention_days: days });
      })
      .catch((err) => deps.log.warn("audit log not pruned", describeError(err)))
      .finally(() => sweeping = null);
  }, deps.config.auditPruneSeconds * 1000);
  return {
    name: "audit-pruner",
    async stop() {
      clearInterval(timer);
      await sweeping;
    },
  };
}
