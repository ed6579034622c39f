/**
 * The `sla_check` job, a durable recurring scan: conversations waiting for a
 * human longer than their workspace's threshold (workspaces.sla_breach_minutes,
 * else SLA_BREACH_MINUTES) raise one `sla_breach` alert per wait. The breach
 * row and its alert job are written in one transaction, and the breach's
 * primary key makes it once-only, across instances and restarts. The job
 * queues its own next run; a finished or failed one is revived at start.
 */
import type { AppDeps } from "../deps.ts";
import { recordNewBreaches } from "../../db/sla_breaches.ts";
import { wakeWorkers } from "../jobs/job_queue.ts";
import type { JobHandler } from "../jobs/job_runner.ts";
import { enqueueAlerts, NOTIFY_AGENTS, scheduleSlaCheck } from "./alert_jobs.ts";

export const slaCheckJob: JobHandler = {
  async run(deps: AppDeps) {
    const cfg = deps.config.notifications;
    const raised = await deps.sql.begin(async (tx) => {
      const breaches = await recordNewBreaches(tx, cfg.slaBreachMinutes);
      await enqueueAlerts(
        tx,
        breaches.map((b) => ({
          key: `sla:${b.conversation_id}:${b.waiting_since.toISOString()}`,
          payload: {
            kind: "sla_breach",
            workspaceId: b.workspace_id,
            chatbotId: b.chatbot_id,
            conversationId: b.conversation_id,
            messageId: null,
            visitorId: null,
            pageUrl: null,
          },
        })),
        { email: Boolean(cfg.smtpUrl) },
      );
      return breaches.length;
    });
    if (raised > 0) await wakeWorkers(deps.kv, NOTIFY_AGENTS);
    // Queue the next run: the runner's completion of this one then finds the
    // row handed over and leaves it queued.
    await scheduleSlaCheck(deps.sql, cfg.slaCheckSeconds);
  },
  async onGiveUp(deps, _raw, reason) {
    deps.log.warn("sla check failed", { reason });
    await scheduleSlaCheck(deps.sql, deps.config.notifications.slaCheckSeconds);
  },
};
