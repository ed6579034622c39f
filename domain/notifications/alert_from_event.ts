/**
 * Which domain event raises which alert (docs/notifications.md). Runs as an
 * event-bus subscriber, after the raising request has committed and
 * answered; it only queues a job, keyed by the event's own identity, so the
 * same event seen by every instance (Redis pub/sub) is queued once.
 */
import type { AppDeps } from "../../app/deps.ts";
import type { DomainEvent } from "../../app/event_bus.ts";
import { describeError } from "../../app/logger.ts";
import type { ParleyEvent } from "../events.ts";
import { wakeWorkers } from "../jobs/job_queue.ts";
import { enqueueAlert, type NotifyAgentsPayload } from "./alert_jobs.ts";

export function alertForEvent(
  raw: DomainEvent,
): { key: string; payload: NotifyAgentsPayload } | null {
  const e = raw as unknown as ParleyEvent;
  const base = {
    workspaceId: e.workspaceId,
    chatbotId: null,
    conversationId: null,
    messageId: null,
    visitorId: null,
    pageUrl: null,
  };
  switch (e.type) {
    case "visitor.seen":
      if (!e.arrived) return null;
      return {
        key: `arrived:${e.chatbotId}:${e.visitorId}`,
        payload: {
          ...base,
          kind: "visitor_arrived",
          chatbotId: e.chatbotId,
          visitorId: e.visitorId,
          pageUrl: e.pageUrl,
        },
      };
    case "conversation.created":
      return {
        key: `chat:${e.conversationId}`,
        payload: {
          ...base,
          kind: "chat_started",
          chatbotId: e.chatbotId,
          conversationId: e.conversationId,
        },
      };
    case "message.created":
      if (e.role !== "visitor") return null;
      return {
        key: `message:${e.messageId}`,
        payload: {
          ...base,
          kind: "visitor_message",
          conversationId: e.conversationId,
          messageId: e.messageId,
        },
      };
    case "handoff.requested":
      return {
        // Without the request's time (an older publisher), one alert per minute at most.
        key: `handoff:${e.conversationId}:${e.requestedAt ?? Math.floor(Date.now() / 60_000)}`,
        payload: {
          ...base,
          kind: "handoff_requested",
          chatbotId: e.chatbotId,
          conversationId: e.conversationId,
        },
      };
    default:
      return null;
  }
}

/** The bus subscriber: queue the alert and wake a worker; never throws. */
export function onDomainEvent(deps: AppDeps) {
  return (event: DomainEvent) => {
    const alert = alertForEvent(event);
    if (!alert) return;
    enqueueAlert(deps.sql, alert.key, alert.payload)
      .then((queued) => queued ? wakeWorkers(deps.kv) : undefined)
      .catch((err) => deps.log.warn("alert not queued", { key: alert.key, ...describeError(err) }));
  };
}
