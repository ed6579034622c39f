/**
 * The webhook event types and which domain event each comes from. One domain
 * event gives at most one webhook event; `orderingKey` (the conversation)
 * keeps one endpoint's events of a conversation in order.
 */
import type { DomainEvent } from "../../app/event_bus.ts";

export const WEBHOOK_EVENT_TYPES = [
  "conversation.created",
  "message.created",
  "conversation.handoff_requested",
  "conversation.assigned",
  "conversation.resolved",
  "conversation.reopened",
  "conversation.rated",
  "lead.captured",
  "contact.erased",
] as const;

export type WebhookEventType = typeof WEBHOOK_EVENT_TYPES[number];

/**
 * The test event an owner sends to one endpoint from the dashboard
 * (send_test_event.ts). Not subscribable: it goes to the endpoint asked,
 * whatever its events, and no domain event produces it.
 */
export const PING_TYPE = "ping";

/** The version of every payload's shape; a breaking change gets a new number. */
export const PAYLOAD_VERSION = 1;

export function webhookTypeOf(event: DomainEvent): WebhookEventType | null {
  switch (event.type) {
    case "conversation.created":
    case "message.created":
    case "conversation.assigned":
    case "conversation.rated":
    case "lead.captured":
    case "contact.erased":
      return event.type;
    case "handoff.requested":
      return "conversation.handoff_requested";
    case "conversation.updated":
      if (event.reason === "resolve") return "conversation.resolved";
      if (event.reason === "reopen") return "conversation.reopened";
      return null;
    default:
      return null;
  }
}
