/**
 * The bus subscriber that records webhook events: for each domain event a
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

/** Record one event for its subscribers (none: nothing written); the deliveries created. */
export async function recordWebhookEvent(
  deps: Pick<AppDeps, "sql" | "clock">,
  event: DomainEvent,
  type: string,
): Promise<number> {
  const dedupeKey = dedupeKeyOf(event, type);
  return await recordEvent(deps.sql, {
    publicId: await webhookIdOf(dedupeKey),
    workspaceId: event.workspaceId,
    type,
    dedupeKey,
    orderingKey: String(event.conversationId ?? ""),
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
  // One conversation's events are recorded one after another, in the order
  // they were published, so their ids (the delivery order) follow it.
  const chains = new Map<string, Promise<void>>();

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
    const key = String(event.conversationId ?? "");
    const next = (chains.get(key) ?? Promise.resolve()).then(() => record(event, type)).catch(
      (err) => deps.log.error("webhook event not recorded", { type, ...describeError(err) }),
    );
    chains.set(key, next);
    next.finally(() => chains.get(key) === next && chains.delete(key));
  };
}
