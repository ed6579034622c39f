/**
 * An endpoint failed for a whole retry window and was switched off: its
 * workspace's owners and administrators get an e-mail (SMTP_URL), and the
 * log says so either way. The endpoint shows `enabled: false` with the reason.
 */
import type { AppDeps } from "../deps.ts";
import type { WebhookEndpointRow } from "../../db/webhook_endpoints.ts";
import { workspaceAdminEmails } from "../../db/webhook_endpoints.ts";
import { describeError } from "../../app/logger.ts";
import type { MailSender } from "../notifications/email_digest_job.ts";

export async function notifyEndpointDisabled(
  deps: AppDeps,
  mailer: MailSender | null,
  endpoint: WebhookEndpointRow,
): Promise<void> {
  deps.log.warn("webhook endpoint disabled", {
    workspace_id: endpoint.workspace_id,
    endpoint_id: endpoint.id,
    reason: endpoint.disabled_reason,
  });
  if (!mailer) return;
  const to = await workspaceAdminEmails(deps.sql, endpoint.workspace_id);
  const text = [
    `Parley could not deliver webhooks to ${endpoint.url} for a day, so the endpoint was disabled.`,
    "",
    `Reason: ${endpoint.disabled_reason}`,
    "",
    "Events that could not be delivered are kept 30 days. Once the receiver works again,",
    `re-enable the endpoint (PATCH /api/portal/webhooks/${endpoint.id} with {"enabled": true})`,
    "and redeliver what it missed from its delivery log.",
  ].join("\n");
  for (const address of to) {
    await mailer.send({ to: address, subject: "Webhook endpoint disabled", text }).catch((err) =>
      deps.log.warn("webhook disabled e-mail not sent", describeError(err))
    );
  }
}
