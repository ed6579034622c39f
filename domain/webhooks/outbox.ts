/**
 * The transactional outbox for the webhook events that nothing else could
 * recover: a handoff request, an assignment, a resolve or reopen, a rating and
 * a captured lead leave no row a sweep could find afterwards (unlike new
 * messages and conversations, see sweep_missed_events.ts). Their event and
 * its deliveries are written by the action's own transaction, so they commit
 * or roll back with the change: a process that dies after the commit, before
 * publishing anything, loses nothing, and the delivery worker sends them
 * after a restart (or from another instance). The bus event published after
 * the commit only wakes the workers (event_recorder.ts).
 */
import type { Executor } from "../../db/client.ts";
import { recordEvent } from "../../db/webhook_deliveries.ts";
import type { ParleyEvent } from "../events.ts";
import { type WebhookEventType, webhookTypeOf } from "./event_types.ts";
import { webhookIdOf } from "./event_identity.ts";

/** The webhook types written by the action's transaction, never by the bus subscriber. */
export const OUTBOX_TYPES: ReadonlySet<WebhookEventType> = new Set<WebhookEventType>([
  "conversation.handoff_requested",
  "conversation.assigned",
  "conversation.resolved",
  "conversation.reopened",
  "conversation.rated",
  "lead.captured",
  "contact.erased",
]);

/**
 * Inside the action's transaction: record `event` for the workspace's enabled
 * endpoints subscribed to its webhook type (one statement; nothing written
 * when none is, or when the event is not an outbox type). Events of one
 * conversation are recorded while its row is locked, so their order is the
 * order of the changes, and each captures the conversation with its change
 * (the payload describes that moment, however late it is sent).
 */
export async function recordInOutbox(tx: Executor, now: Date, event: ParleyEvent): Promise<void> {
  const type = webhookTypeOf(event);
  if (!type || !OUTBOX_TYPES.has(type)) return;
  const dedupeKey = `outbox:${crypto.randomUUID()}`;
  const conversationId = "conversationId" in event ? String(event.conversationId) : null;
  await recordEvent(tx, {
    publicId: await webhookIdOf(dedupeKey),
    workspaceId: event.workspaceId,
    type,
    dedupeKey,
    orderingKey: conversationId ?? "",
    conversationId,
    source: event as unknown as Record<string, unknown>,
    now,
  });
}
