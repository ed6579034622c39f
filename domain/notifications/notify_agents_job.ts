/**
 * The `notify_agents` job: one alert goes to every push subscription of
 * every agent it concerns, and into the next e-mail of every agent who wants
 * e-mail, each agent's preferences (master switch, the kind's flag, quiet
 * hours, DND, bot filter) applied. Pushes go out from here at once; those a
 * push service cannot take now are handed to a `push_delivery` job that
 * retries them with backoff.
 */
import {
  findAlertConversation,
  findAlertTargets,
  findChatbotName,
  type PushTargetRow,
} from "../../db/notification_targets.ts";
import { insertEmailItems } from "../../db/notification_email_items.ts";
import { backoffSeconds, type JobHandler } from "../jobs/job_runner.ts";
import {
  EMAIL_DIGEST,
  enqueuePushRetry,
  type NotifyAgentsPayload,
  scheduleEmailDigests,
} from "./alert_jobs.ts";
import { composeAlert } from "./compose_alert.ts";
import type { Deliverer } from "./deliver_pushes.ts";
import { resolvePreferences, wantsEmail, wantsPush } from "./preferences.ts";
import { wakeWorkers } from "../jobs/job_queue.ts";

/** First retry of failed pushes; the push_delivery runner doubles it from there. */
export const PUSH_RETRY_BASE_SECONDS = 2;

export function notifyAgentsJob(deliverer: Deliverer | null): JobHandler {
  return {
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
      await ctx.pace();
      const targets = await findAlertTargets(
        deps.sql,
        job.workspaceId,
        job.kind === "visitor_message" ? conversation!.id : null,
      );
      const pushes: PushTargetRow[] = [];
      const mailTo: number[] = [];
      for (const target of targets) {
        const prefs = resolvePreferences(target.settings, target.dnd_until, now);
        if (deliverer && wantsPush(prefs, job.kind, chatbotId, now)) {
          pushes.push(...target.subscriptions);
        }
        if (deps.config.notifications.smtpUrl && wantsEmail(prefs, job.kind, chatbotId, now)) {
          mailTo.push(target.user_id);
        }
      }
      if (mailTo.length) {
        await deps.sql.begin(async (tx) => {
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
      }
      if (deliverer && pushes.length) {
        const { retry } = await deliverer.deliver(alert, pushes, ctx.signal);
        if (retry.length) {
          await enqueuePushRetry(
            deps.sql,
            `${ctx.jobId}`,
            { alert, subscriptionIds: retry },
            backoffSeconds(1, PUSH_RETRY_BASE_SECONDS),
          );
        }
      }
      if (mailTo.length) await wakeWorkers(deps.kv, EMAIL_DIGEST);
    },
    onGiveUp(deps, raw, reason) {
      deps.log.warn("alert dropped", { kind: String(raw.kind), reason });
      return Promise.resolve();
    },
  };
}
