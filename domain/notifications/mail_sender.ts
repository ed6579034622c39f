/** The SMTP transport for alert e-mails: nodemailer over SMTP_URL (smtp:// or smtps://). */
import nodemailer from "nodemailer";
import type { MailSender } from "./email_digest_job.ts";
import { recordNotification } from "../observability/metrics.ts";

/**
 * The slice of nodemailer's transport used here. @types/nodemailer is not a
 * dependency: it pulls a newer @types/node that breaks node:assert's types.
 */
interface Transport {
  sendMail(mail: { from: string; to: string; subject: string; text: string }): Promise<unknown>;
  close(): void;
}

export function createMailSender(smtpUrl: string, from: string): MailSender {
  const transport: Transport = (nodemailer as { createTransport(url: string): Transport })
    .createTransport(smtpUrl);
  return {
    async send(mail) {
      try {
        await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
        recordNotification("email", "sent");
      } catch (err) {
        recordNotification("email", "failed");
        throw err;
      }
    },
    close() {
      transport.close();
    },
  };
}
