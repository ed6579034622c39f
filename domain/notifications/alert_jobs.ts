/**
 * The notification jobs on the durable queue and how they are enqueued:
 * `notify_agents` (one per alert: decide who gets it), `push_delivery` (one
 * per subscription, retried on its own), `email_digest` (one per agent,
 * gathering alerts into one mail), `sla_check` (the recurring breach scan).
 */
import type { Executor } from "../../db/client.ts";
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
  subscriptionId: number;
  alert: AlertPayload;
}

/** Queue one alert; `key` names it, so the same alert raised twice is queued once. */
export async function enqueueAlert(
  sql: Executor,
  key: string,
  payload: NotifyAgentsPayload,
): Promise<boolean> {
  const n = await insertJobsOnce(sql, [{
    kind: NOTIFY_AGENTS,
    payload: { ...payload },
    dedupeKey: `notify:${key}`,
    maxAttempts: 5,
  }]);
  return n > 0;
}

export async function enqueuePushDeliveries(
  sql: Executor,
  alertKey: string,
  deliveries: PushDeliveryPayload[],
): Promise<void> {
  await insertJobsOnce(
    sql,
    deliveries.map((d) => ({
      kind: PUSH_DELIVERY,
      payload: { ...d },
      dedupeKey: `push:${alertKey}:${d.subscriptionId}`,
      maxAttempts: 6,
    })),
  );
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

export async function scheduleSlaCheck(sql: Executor, delaySeconds: number): Promise<void> {
  await scheduleJobs(
    sql,
    [{ kind: SLA_CHECK, payload: {}, dedupeKey: SLA_CHECK, maxAttempts: 3 }],
    delaySeconds,
  );
}
