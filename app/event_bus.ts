/**
 * Domain events, emitted after a transaction commits. Delivered through the Kv
 * pub/sub, so with Redis every instance's subscribers see every event.
 *
 * This instance's own subscribers get an event at once, not after a trip
 * through Redis and back (a round trip off every reply's way to the agent's
 * socket). Each message on the Kv carries its instance of origin, and an
 * instance skips its own.
 */
import type { Kv, Unsubscribe } from "../kv/kv.ts";
import { detached, tracingOn } from "../domain/observability/tracing.ts";

export interface DomainEvent {
  type: string;
  workspaceId: number;
  [field: string]: unknown;
}

export interface EventBus {
  emit(event: DomainEvent): Promise<void>;
  on(handler: (event: DomainEvent) => void): Promise<Unsubscribe>;
}

const CHANNEL = "events";

/** What travels on the Kv channel. */
interface Envelope {
  origin: string;
  event: DomainEvent;
}

type Handler = (event: DomainEvent) => void;

export function createEventBus(kv: Kv): EventBus {
  const origin = crypto.randomUUID();
  const local = new Set<Handler>();

  // Handlers see what another instance's would: the event as parsed from its
  // JSON (one copy each), after the emitting action has carried on.
  const deliverLocally = (json: string) => {
    for (const handler of local) {
      const deliver = () => safely(handler, JSON.parse(json));
      queueMicrotask(tracingOn ? () => detached(deliver) : deliver);
    }
  };

  return {
    emit: (event) => {
      // The event is serialised once, for this instance and the envelope alike.
      const json = JSON.stringify(event);
      deliverLocally(json);
      return kv.publish(CHANNEL, `{"origin":${JSON.stringify(origin)},"event":${json}}`);
    },
    on: async (handler) => {
      const unsubscribe = await kv.subscribe(CHANNEL, (raw) => {
        let envelope: Envelope;
        try {
          envelope = JSON.parse(raw) as Envelope;
        } catch {
          return; // a malformed message must not kill the subscriber
        }
        if (envelope.origin !== origin && envelope.event) safely(handler, envelope.event);
      });
      local.add(handler);
      return async () => {
        local.delete(handler);
        await unsubscribe();
      };
    },
  };
}

/** A subscriber that throws must not take the bus (or the process) down with it. */
function safely(handler: Handler, event: DomainEvent): void {
  try {
    handler(event);
  } catch {
    // Subscribers report their own failures (realtime_feed, notifications).
  }
}
