/**
 * One claimed delivery from body to settled row: render the body if this is
 * the event's first attempt (from what was recorded with the event, so every
 * endpoint and attempt gets the same bytes), sign with the current secret
 * (and the previous one during a rotation's overlap), send, log the attempt,
 * and schedule the retry, give up, or mark the endpoint healthy. A day of
 * failures disables the endpoint (once) and tells its owners.
 */
import type { AppDeps } from "../deps.ts";
import type { ClaimedDelivery } from "../../db/webhook_deliveries.ts";
import { recordAttempt, storeEventBody } from "../../db/webhook_deliveries.ts";
import {
  disableEndpoint,
  markEndpointFailing,
  markEndpointHealthy,
} from "../../db/webhook_endpoints.ts";
import { decryptText } from "../auth/secrets.ts";
import type { MailSender } from "../notifications/email_digest_job.ts";
import { snapshotRow, webhookConversation } from "../../db/webhook_payloads.ts";
import { renderPayload } from "./render_payload.ts";
import { sendAttempt } from "./send_attempt.ts";
import { nextAttemptAt } from "./retry_schedule.ts";
import { notifyEndpointDisabled } from "./notify_disabled.ts";
import { recordWebhook } from "../observability/metrics.ts";

// Decrypted secrets by ciphertext: a rotation stores a new ciphertext, so nothing goes stale.
const secrets = new Map<string, Promise<string>>();

function secretOf(deps: AppDeps, ciphertext: string): Promise<string> {
  let plain = secrets.get(ciphertext);
  if (!plain) {
    if (secrets.size > 1000) secrets.clear();
    plain = decryptText(deps.appKey, ciphertext);
    plain.catch(() => secrets.delete(ciphertext));
    secrets.set(ciphertext, plain);
  }
  return plain;
}

/** Waits (or not: undefined) before a statement, for a moment the database is free. */
export type Pace = () => Promise<void> | undefined;

/**
 * The conversation recorded with the event; for an event recorded without it
 * (before migration 0195, or by an instance on the previous version) the
 * conversation as it is now, as those versions did.
 */
async function conversationOf(deps: AppDeps, d: ClaimedDelivery, pace: Pace) {
  if (d.event_conversation) return snapshotRow(d.event_conversation);
  const conversationId = String(d.event_source.conversationId ?? "");
  if (!conversationId) return null;
  await pace();
  return await webhookConversation(deps.sql, d.workspace_id, conversationId);
}

export async function deliverOne(
  deps: AppDeps,
  d: ClaimedDelivery,
  workerId: string,
  signal: AbortSignal,
  mailer: MailSender | null,
  pace: Pace = () => undefined,
): Promise<void> {
  const cfg = deps.config.webhooks;
  let body = d.event_body;
  if (body === null) {
    const rendered = renderPayload({
      publicId: d.event_public_id,
      type: d.event_type,
      createdAt: d.event_created_at,
      source: d.event_source,
      conversation: await conversationOf(deps, d, pace),
    });
    await pace();
    body = await storeEventBody(deps.sql, d.event_id, rendered);
  }
  const now = deps.clock();
  const secrets = [await secretOf(deps, d.secret_encrypted)];
  if (d.previous_secret_encrypted && d.previous_expires_at && d.previous_expires_at > now) {
    secrets.push(await secretOf(deps, d.previous_secret_encrypted));
  }
  const outcome = await sendAttempt(cfg, {
    url: d.url,
    secrets,
    webhookId: d.event_public_id,
    body,
    now,
    signal,
  });
  const after = deps.clock();
  const next = outcome.kind === "retry"
    ? nextAttemptAt(cfg, d.attempts, d.window_started_at, after, outcome.retryAfterSeconds)
    : null;
  const settled = outcome.kind === "retry" && next === null ? "failed" : outcome.kind;
  await pace();
  recordWebhook(settled);
  const held = await recordAttempt(deps.sql, {
    deliveryId: d.id,
    workerId,
    attempt: d.attempts,
    at: after,
    statusCode: outcome.statusCode,
    durationMs: outcome.durationMs,
    responseExcerpt: outcome.excerpt,
    error: settled === "failed" && outcome.kind === "retry"
      ? `${outcome.error} Gave up: the retry window ended.`
      : outcome.error,
    outcome: settled,
    nextAttemptAt: next ?? undefined,
  });
  if (!held) return; // the lease was lost: another worker owns the delivery now
  if (outcome.kind === "succeeded") {
    if (d.failing_since) await markEndpointHealthy(deps.sql, d.endpoint_id);
    return;
  }
  const failingSince = await markEndpointFailing(deps.sql, d.endpoint_id, after);
  if (after.getTime() - failingSince.getTime() >= cfg.retryWindowSeconds * 1000) {
    const reason = `Every delivery failed since ${failingSince.toISOString()}; last: ${
      outcome.error ?? "unknown error"
    }`;
    const disabled = await disableEndpoint(deps.sql, d.endpoint_id, reason, after);
    if (disabled) await notifyEndpointDisabled(deps, mailer, disabled);
  }
}
