/**
 * The bus subscriber that records the webhook events not written by the
 * action's own transaction (`message.created`, `conversation.created`; the
 * others come from outbox.ts and only wake the worker here): for each a
 * workspace's enabled endpoints subscribe to, one webhook_events row and one
 * delivery per endpoint, in one statement keyed by the event's id, so every
 * instance may try and one wins. Which types a workspace subscribes to is
 * cached per instance (dropped on `webhook_endpoints.changed`, and after
 * GATE_TTL_MS as a safety net): a workspace without endpoints costs a map
 * lookup per event and no query.
 */
import type { AppDeps } from "../deps.ts";
import type { DomainEvent } from "../../app/event_bus.ts";
import { describeError } from "../../app/logger.ts";
import { subscribedKinds } from "../../db/webhook_endpoints.ts";
import { recordEvent } from "../../db/webhook_deliveries.ts";
import { webhookTypeOf } from "./event_types.ts";
import { dedupeKeyOf, webhookIdOf } from "./event_identity.ts";
import { OUTBOX_TYPES } from "./outbox.ts";
// One conversation's events are recorded one after another, in the order
// they were published, so their ids (the delivery order) follow it.
import { enqueueRecording } from "./recording_order.ts";

/**
 * Record one event for its subscribers (none: nothing written), with the
 * conversation as it is now, just after the action's commit; the deliveries
 * created.
 */
export async function recordWebhookEvent(
  deps: Pick<AppDeps, "sql" | "clock">,
  event: DomainEvent,
  type: string,
): Promise<number> {
  const dedupeKey = dedupeKeyOf(event, type);
  const conversationId = typeof event.conversationId === "string" ? event.conversationId : null;
  return await recordEvent(deps.sql, {
    publicId: await webhookIdOf(dedupeKey),
    workspaceId: event.workspaceId,
    type,
    dedupeKey,
    orderingKey: String(event.conversationId ?? ""),
    conversationId,
    source: event,
    now: deps.clock(),
  });
}

const GATE_TTL_MS = 60_000;

interface Gate {
  kinds: Promise<Set<string>>;
  /** The same set once loaded: the common "no endpoint wants this" answer needs no await. */
  loaded?: Set<string>;
  loadedAt: number;
}

export function createEventRecorder(deps: AppDeps, onRecorded: () => void) {
  const gates = new Map<number, Gate>();

  const kindsOf = (workspaceId: number): Promise<Set<string>> => {
    const cached = gates.get(workspaceId);
    if (cached && performance.now() - cached.loadedAt < GATE_TTL_MS) return cached.kinds;
    const kinds = subscribedKinds(deps.sql, workspaceId).then((k) => new Set(k));
    const gate: Gate = { kinds, loadedAt: performance.now() };
    gates.set(workspaceId, gate);
    kinds.then((k) => gate.loaded = k, () => {});
    kinds.catch(() => gates.get(workspaceId) === gate && gates.delete(workspaceId));
    return kinds;
  };

  const record = async (event: DomainEvent, type: string) => {
    if (!(await kindsOf(event.workspaceId)).has(type)) return;
    if (await recordWebhookEvent(deps, event, type) > 0) onRecorded();
  };

  return (event: DomainEvent): void => {
    if (event.type === "webhook_endpoints.changed") {
      gates.delete(event.workspaceId);
      return;
    }
    const type = webhookTypeOf(event);
    if (!type) return;
    const gate = gates.get(event.workspaceId);
    if (gate?.loaded && !gate.loaded.has(type) && performance.now() - gate.loadedAt < GATE_TTL_MS) {
      return;
    }
    // Already recorded by the action's transaction (outbox.ts): its deliveries are due now.
    if (OUTBOX_TYPES.has(type)) return onRecorded();
    enqueueRecording(
      String(event.conversationId ?? ""),
      () => record(event, type),
      (err) => deps.log.error("webhook event not recorded", { type, ...describeError(err) }),
    );
  };
}
