/**
 * Which domain event raises which alert (docs/notifications.md). Runs as an
 * event-bus subscriber, after the raising request has committed and
 * answered; it only queues a job, keyed by the event's own identity, so the
 * same event seen by every instance (Redis pub/sub) is queued once.
 */
import type { AppDeps } from "../deps.ts";
import type { DomainEvent } from "../../app/event_bus.ts";
import { describeError } from "../../app/logger.ts";
import type { ParleyEvent } from "../events.ts";
import { wakeWorkers } from "../jobs/job_queue.ts";
import { enqueueAlerts, NOTIFY_AGENTS, type QueuedAlert } from "./alert_jobs.ts";

export function alertForEvent(raw: DomainEvent): QueuedAlert | null {
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

/** Alerts raised within this window are queued together, in one statement. */
const FLUSH_AFTER_MS = 10;

/**
 * The bus subscriber. It only notes the alert in memory; a timer queues what
 * gathered in one INSERT a moment later, so the raising request never waits
 * for (or queues behind) the job insert, and a burst of events costs one
 * statement. Never throws; an alert that cannot be queued is logged.
 */
export function alertQueue(deps: AppDeps) {
  let pending: QueuedAlert[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  let inFlight: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    const batch = pending;
    pending = [];
    if (batch.length === 0) return inFlight;
    inFlight = inFlight.then(() =>
      enqueueAlerts(deps.sql, batch, { email: Boolean(deps.config.notifications.smtpUrl) })
        .then((queued) => queued > 0 ? wakeWorkers(deps.kv, NOTIFY_AGENTS) : undefined)
        .catch((err) =>
          deps.log.warn("alerts not queued", { count: batch.length, ...describeError(err) })
        )
    );
    return inFlight;
  };
  return {
    onEvent(event: DomainEvent) {
      const alert = alertForEvent(event);
      if (!alert) return;
      pending.push(alert);
      timer ??= setTimeout(() => void flush(), FLUSH_AFTER_MS);
    },
    flush,
  };
}
