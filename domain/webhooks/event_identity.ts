/**
 * An event's dedupe key and webhook-id. New conversations and messages are
 * keyed by what they are (`message.created:812`), so the recovery sweep,
 * which finds them in their tables, and the bus subscriber record the same
 * event once; other events by the id publishEvent gave them. The webhook-id
 * is derived from the key, the same on every instance.
 */
import type { DomainEvent } from "../../app/event_bus.ts";

export function dedupeKeyOf(event: DomainEvent, type: string): string {
  if (type === "message.created") return `message.created:${event.messageId}`;
  if (type === "conversation.created") return `conversation.created:${event.conversationId}`;
  return typeof event.eventId === "string" ? event.eventId : crypto.randomUUID();
}

export async function webhookIdOf(dedupeKey: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(dedupeKey));
  const hex = [...new Uint8Array(digest).subarray(0, 16)]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  return `msg_${hex}`;
}
