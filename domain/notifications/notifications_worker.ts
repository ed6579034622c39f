/**
 * The notifications worker started with the server (app/workers.ts): the
 * event-bus subscriber that turns domain events into alert jobs, and a job
 * runner for the alert, push, e-mail and SLA jobs. Where neither push (VAPID
 * keys) nor e-mail (SMTP_URL) is set up it does nothing at all.
 */
import type { AppDeps, Worker } from "../deps.ts";
import { describeError } from "../../app/logger.ts";
import type { Unsubscribe } from "../../kv/kv.ts";
import { type JobHandler, startJobRunner } from "../jobs/job_runner.ts";
import {
  EMAIL_DIGEST,
  NOTIFY_AGENTS,
  PUSH_DELIVERY,
  scheduleSlaCheck,
  SLA_CHECK,
} from "./alert_jobs.ts";
import { alertQueue } from "./alert_from_event.ts";
import { notifyAgentsJob, PUSH_RETRY_BASE_SECONDS } from "./notify_agents_job.ts";
import { createDeliverer } from "./deliver_pushes.ts";
import { pushDeliveryJob } from "./push_delivery_job.ts";
import { createPushSender, type PushSender } from "./send_push.ts";
import { emailDigestJob, type MailSender } from "./email_digest_job.ts";
import { createMailSender } from "./mail_sender.ts";
import { slaCheckJob } from "./sla_check_job.ts";

export function startNotificationsWorker(deps: AppDeps): Worker {
  const cfg = deps.config.notifications;
  if (!deps.vapid && !cfg.smtpUrl) return { name: "notifications", stop: () => Promise.resolve() };
  let stopped = false;
  let unsubscribe: Unsubscribe | null = null;
  let inner: Worker | null = null;
  let sender: PushSender | null = null;
  let mailer: MailSender | null = null;
  let flushAlerts: () => Promise<void> = () => Promise.resolve();

  const ready = (async () => {
    const alerts = alertQueue(deps);
    flushAlerts = alerts.flush;
    unsubscribe = await deps.bus.on(alerts.onEvent);
    if (cfg.concurrency === 0 || stopped) return;
    const handlers: Record<string, JobHandler> = { [SLA_CHECK]: slaCheckJob };
    if (deps.vapid) {
      sender = await createPushSender(deps.vapid, {
        caFile: cfg.pushCaFile,
        timeoutMs: cfg.pushTimeoutMs,
      });
      const deliverer = createDeliverer(deps, sender);
      handlers[NOTIFY_AGENTS] = notifyAgentsJob(deliverer);
      handlers[PUSH_DELIVERY] = pushDeliveryJob(deliverer);
    } else {
      handlers[NOTIFY_AGENTS] = notifyAgentsJob(null);
    }
    if (cfg.smtpUrl) {
      mailer = createMailSender(cfg.smtpUrl, cfg.mailFrom);
      handlers[EMAIL_DIGEST] = emailDigestJob(mailer);
    }
    await scheduleSlaCheck(deps.sql, cfg.slaCheckSeconds, true);
    if (stopped) return;
    inner = startJobRunner(deps, handlers, {
      name: "notifications",
      concurrency: cfg.concurrency,
      pollMs: 1000,
      backoffBaseSeconds: PUSH_RETRY_BASE_SECONDS,
    });
  })().catch((err) => deps.log.error("notifications worker not started", describeError(err)));

  return {
    name: "notifications",
    async stop() {
      stopped = true;
      await ready;
      await (unsubscribe as Unsubscribe | null)?.();
      await flushAlerts();
      await (inner as Worker | null)?.stop();
      (sender as PushSender | null)?.close();
      (mailer as MailSender | null)?.close();
    },
  };
}
