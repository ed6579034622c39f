/** The invitation e-mail, through SMTP_URL; false when SMTP is not set or the mail failed. */
import type { AppDeps } from "../deps.ts";
import { createMailSender } from "../notifications/mail_sender.ts";

export interface InvitationMail {
  to: string;
  inviter: string;
  workspace: string;
  role: string;
  link: string;
  expiresAt: Date;
}

export async function mailInvitation(
  deps: Pick<AppDeps, "config" | "log">,
  m: InvitationMail,
): Promise<boolean> {
  const { smtpUrl, mailFrom } = deps.config.notifications;
  if (!smtpUrl) return false;
  const mailer = createMailSender(smtpUrl, mailFrom);
  try {
    await mailer.send({
      to: m.to,
      subject: `${m.inviter} invited you to ${m.workspace} on Parley`,
      text: [
        `${m.inviter} invited you to join ${m.workspace} on Parley as ${m.role}.`,
        "",
        `Choose your password here (the link works once, until ${m.expiresAt.toUTCString()}):`,
        m.link,
      ].join("\n"),
    });
    return true;
  } catch (err) {
    deps.log.warn("invitation e-mail not sent; the link stays on the Team screen", {
      error: err instanceof Error ? err.message : String(err),
    });
    return false;
  } finally {
    mailer.close();
  }
}
