/**
 * The `email_digest` job: every alert gathered for one agent since the last
 * mail goes out as one e-mail (nodemailer over SMTP_URL), so a busy
 * conversation sends one mail per batch window, not one per message. Items
 * are deleted only after the SMTP server accepted the mail; a failure
 * retries with backoff and nothing is lost.
 */
import type { AppDeps } from "../deps.ts";
import {
  deleteEmailItemsUpTo,
  type EmailItem,
  pendingEmailItems,
} from "../../db/notification_email_items.ts";
import type { JobHandler } from "../jobs/job_runner.ts";
import { scheduleEmailDigests } from "./alert_jobs.ts";

/** What one mail carries at most; the rest follows in the next one. */
const ITEMS_PER_MAIL = 200;

export interface MailSender {
  send(mail: { to: string; subject: string; text: string }): Promise<void>;
  close(): void;
}

export function composeDigest(name: string, items: EmailItem[]): { subject: string; text: string } {
  const subject = items.length === 1
    ? `Parley: ${items[0]!.title}`
    : `Parley: ${items.length} new alerts`;
  // One section per conversation (or visitor), oldest first.
  const groups = new Map<string, EmailItem[]>();
  for (const item of items) {
    const key = item.conversation_id ?? item.url;
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  const sections = [...groups.values()].map((group) => {
    const lines = group.map((i) =>
      `- ${i.created_at.toISOString().slice(11, 16)} UTC  ${i.title}: ${i.body}`
    );
    return `${lines.join("\n")}\nOpen: ${group[0]!.url}`;
  });
  const text = `Hello ${name},\n\n${sections.join("\n\n")}\n\n` +
    "You receive these because e-mail alerts are on in your notification settings.\n";
  return { subject, text };
}

export function emailDigestJob(mailer: MailSender): JobHandler {
  return {
    async run(deps: AppDeps, raw) {
      const userId = Number(raw.userId);
      const pending = await pendingEmailItems(deps.sql, userId, ITEMS_PER_MAIL);
      if (!pending || pending.items.length === 0) return;
      const mail = composeDigest(pending.name, pending.items);
      await mailer.send({ to: pending.email, ...mail });
      const left = await deleteEmailItemsUpTo(
        deps.sql,
        userId,
        pending.items[pending.items.length - 1]!.id,
      );
      if (left > 0) {
        await scheduleEmailDigests(deps.sql, [userId], deps.config.notifications.emailBatchSeconds);
      }
    },
    onGiveUp(deps, raw, reason) {
      deps.log.warn("alert e-mail not sent", { user: Number(raw.userId), reason });
      return Promise.resolve();
    },
  };
}
