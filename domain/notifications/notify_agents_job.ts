/**
 * The `notify_agents` job: one alert becomes a push delivery per
 * subscription of every agent it concerns, and a line in the next e-mail of
 * every agent who wants e-mail, each agent's preferences (master switch, the
 * kind's flag, quiet hours, DND, bot filter) applied. Deliveries are jobs of
 * their own, so one slow or failing push service retries alone.
 */
import {
  findAlertConversation,
  findAlertTargets,
  findChatbotName,
} from "../../db/notification_targets.ts";
import { insertEmailItems } from "../../db/notification_email_items.ts";
import { wakeWorkers } from "../jobs/job_queue.ts";
import type { JobHandler } from "../jobs/job_runner.ts";
import {
  enqueuePushDeliveries,
  type NotifyAgentsPayload,
  type PushDeliveryPayload,
  scheduleEmailDigests,
} from "./alert_jobs.ts";
import { composeAlert } from "./compose_alert.ts";
import { resolvePreferences, wantsEmail, wantsPush } from "./preferences.ts";

export const notifyAgentsJob: JobHandler = {
  async run(deps, raw, ctx) {
    const job = raw as unknown as NotifyAgentsPayload;
    const now = deps.clock();
    const conversation = job.conversationId
      ? await findAlertConversation(deps.sql, job.workspaceId, job.conversationId, job.messageId)
      : null;
    if (job.conversationId && !conversation) return; // deleted meanwhile
    const chatbotId = conversation?.chatbot_id ?? job.chatbotId;
    const chatbotName = conversation?.chatbot_name ??
      (chatbotId ? await findChatbotName(deps.sql, job.workspaceId, chatbotId) : null) ??
      "your site";
    const waited = job.kind === "sla_breach" && conversation?.handoff_requested_at
      ? Math.floor((now.getTime() - conversation.handoff_requested_at.getTime()) / 60_000)
      : null;
    const alert = composeAlert(deps.config.baseUrl, job, conversation, chatbotName, waited);
    const targets = await findAlertTargets(
      deps.sql,
      job.workspaceId,
      job.kind === "visitor_message" ? conversation!.id : null,
    );
    const pushes: PushDeliveryPayload[] = [];
    const mailTo: number[] = [];
    for (const target of targets) {
      const prefs = resolvePreferences(target.settings, target.dnd_until, now);
      if (deps.vapid && wantsPush(prefs, job.kind, chatbotId, now)) {
        for (const id of target.subscription_ids) pushes.push({ subscriptionId: id, alert });
      }
      if (deps.config.notifications.smtpUrl && wantsEmail(prefs, job.kind, chatbotId, now)) {
        mailTo.push(target.user_id);
      }
    }
    if (pushes.length === 0 && mailTo.length === 0) return;
    const alertKey = `${job.kind}:${ctx.jobId}`;
    await deps.sql.begin(async (tx) => {
      await enqueuePushDeliveries(tx, alertKey, pushes);
      await insertEmailItems(
        tx,
        mailTo.map((userId) => ({
          userId,
          workspaceId: job.workspaceId,
          conversationId: alert.conversation_id,
          kind: alert.kind,
          title: alert.title,
          body: alert.body,
          url: alert.url,
        })),
      );
      await scheduleEmailDigests(tx, mailTo, deps.config.notifications.emailBatchSeconds);
    });
    await wakeWorkers(deps.kv);
  },
  onGiveUp(deps, raw, reason) {
    deps.log.warn("alert dropped", { kind: String(raw.kind), reason });
    return Promise.resolve();
  },
};
