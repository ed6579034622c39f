/**
 * "Forgot password": e-mails a reset link (one hour, single use) through
 * SMTP_URL. The answer is the same sentence whether or not the address has an
 * account, and so is the work: a secret is drawn and hashed, a row is written
 * (the link, or an audit row of the request), and the mail leaves after the
 * answer, so its delivery time cannot tell either. Every request counts as one
 * attempt in the shared login lockout for its e-mail and address. Without SMTP
 * the answer says who can help instead.
 */
import type { AppDeps } from "../deps.ts";
import { findUserByEmail } from "../../db/users.ts";
import { findWorkspace } from "../../db/workspaces.ts";
import { beginLoginAttempt, type LockoutPolicy } from "../auth/login_lockout.ts";
import { anonymousActor, recordAudit } from "../audit/record_audit.ts";
import { createMailSender } from "../notifications/mail_sender.ts";
import { newResetSecret, type ResetApp, resetLink, storeResetLink } from "./reset_links.ts";

export const RESET_SENT_MESSAGE = "If an account uses that address, a link to choose a new " +
  "password is on its way. It works once, for one hour.";
export const RESET_UNAVAILABLE_MESSAGE = "Password reset by e-mail is not set up on this " +
  "server. Ask an owner or administrator of your workspace for a reset link (Team → Reset " +
  "link), or your operator (admin CLI `user:password`).";

export async function requestPasswordReset(
  deps: Pick<AppDeps, "sql" | "kv" | "log" | "config">,
  lockout: LockoutPolicy,
  input: { email: string; app: ResetApp; ip: string; now: Date },
): Promise<{ message: string; emailed: boolean }> {
  const email = input.email.trim().toLowerCase();
  const attempt = await beginLoginAttempt(deps.kv, lockout, email, input.ip);
  await attempt.failed(); // counted, whatever follows: a request proves nothing
  const { smtpUrl, mailFrom } = deps.config.notifications;
  if (!smtpUrl) return { message: RESET_UNAVAILABLE_MESSAGE, emailed: false };
  const { secret, hash } = await newResetSecret();
  const user = await findUserByEmail(deps.sql, email);
  const workspace = user ? await findWorkspace(deps.sql, user.workspace_id) : null;
  const usable = user && workspace && !user.suspended && !workspace.suspended;
  await deps.sql.begin(async (tx) => {
    if (usable) {
      await storeResetLink(tx, {
        workspaceId: Number(user.workspace_id),
        userId: Number(user.id),
        hash,
        now: input.now,
      });
    }
    await recordAudit(tx, {
      workspaceId: usable ? Number(user.workspace_id) : null,
      actor: anonymousActor(email, input.ip),
      action: "auth.password_reset_requested",
      target: { type: "user", id: usable ? Number(user.id) : email },
      details: { by: "email", account_found: Boolean(usable) },
      now: input.now,
    });
  });
  if (usable) {
    const link = resetLink(deps.config.baseUrl, input.app, secret);
    // Not awaited: the answer leaves before the mail, known address or not.
    void sendResetMail(deps, smtpUrl, mailFrom, { to: email, name: user.name, link });
  }
  return { message: RESET_SENT_MESSAGE, emailed: true };
}

async function sendResetMail(
  deps: Pick<AppDeps, "log">,
  smtpUrl: string,
  from: string,
  m: { to: string; name: string; link: string },
): Promise<void> {
  const mailer = createMailSender(smtpUrl, from);
  try {
    await mailer.send({
      to: m.to,
      subject: "Choose a new Parley password",
      text: [
        `Hello ${m.name},`,
        "",
        "Someone (we hope you) asked to reset your Parley password. Choose a new one here;",
        "the link works once and expires in one hour:",
        m.link,
        "",
        "Using it signs you out everywhere. If you did not ask, ignore this mail: your",
        "password stays as it is.",
      ].join("\n"),
    });
  } catch (err) {
    deps.log.warn("password reset e-mail not sent", {
      error: err instanceof Error ? err.message : String(err),
    });
  } finally {
    mailer.close();
  }
}
