/**
 * The notification jobs on the durable queue and how they are enqueued:
 * `notify_agents` (one per alert: decide who gets it and push to them),
 * `push_delivery` (the pushes of an alert that must be tried again, with
 * backoff), `email_digest` (one per agent, gathering alerts into one mail),
 * `sla_check` (the recurring breach scan).
 */
import type { Executor } from "../../db/client.ts";
import { insertReachableAlertJobs } from "../../db/notification_targets.ts";
import { insertJobsOnce, scheduleJobs } from "../../db/jobs.ts";
import type { AlertKind, AlertPayload } from "./alert_kinds.ts";

export const NOTIFY_AGENTS = "notify_agents";
export const PUSH_DELIVERY = "push_delivery";
export const EMAIL_DIGEST = "email_digest";
export const SLA_CHECK = "sla_check";

export interface NotifyAgentsPayload {
  kind: AlertKind;
  workspaceId: number;
  chatbotId: number | null;
  conversationId: string | null;
  messageId: number | null;
  visitorId: string | null;
  pageUrl: string | null;
}

export interface PushDeliveryPayload {
  alert: AlertPayload;
  subscriptionIds: number[];
}

export interface QueuedAlert {
  /** Names the alert, so the same alert raised twice (or seen by every instance) is queued once. */
  key: string;
  payload: NotifyAgentsPayload;
}

/**
 * Queue alerts in one statement; returns how many were new. `email`: whether
 * e-mail alerts are on (SMTP_URL); without it, an alert for a workspace where
 * no agent has a push subscription reaches no one and is not queued.
 */
export async function enqueueAlerts(
  sql: Executor,
  alerts: QueuedAlert[],
  channels: { email: boolean },
): Promise<number> {
  return await insertReachableAlertJobs(
    sql,
    alerts.map((a) => ({
      kind: NOTIFY_AGENTS,
      payload: { ...a.payload },
      dedupeKey: `notify:${a.key}`,
      maxAttempts: 5,
    })),
    channels.email,
  );
}

/** The pushes of one alert that failed for now (5xx, 429, time-out), due after a delay. */
export async function enqueuePushRetry(
  sql: Executor,
  alertKey: string,
  payload: PushDeliveryPayload,
  delaySeconds: number,
): Promise<void> {
  await insertJobsOnce(sql, [{
    kind: PUSH_DELIVERY,
    payload: { ...payload },
    dedupeKey: `push_retry:${alertKey}`,
    maxAttempts: 6,
  }], delaySeconds);
}

export async function scheduleEmailDigests(
  sql: Executor,
  userIds: number[],
  delaySeconds: number,
): Promise<void> {
  await scheduleJobs(
    sql,
    userIds.map((userId) => ({
      kind: EMAIL_DIGEST,
      payload: { userId },
      dedupeKey: `email_digest:${userId}`,
      maxAttempts: 8,
    })),
    delaySeconds,
  );
}

/**
 * The next SLA check. `atStart`: only revive a finished or failed one, never
 * take over a check another instance is running.
 */
export async function scheduleSlaCheck(
  sql: Executor,
  delaySeconds: number,
  atStart = false,
): Promise<void> {
  await scheduleJobs(
    sql,
    [{ kind: SLA_CHECK, payload: {}, dedupeKey: SLA_CHECK, maxAttempts: 3 }],
    delaySeconds,
    { keepRunning: atStart },
  );
}
