/**
 * Domain events, emitted after a transaction commits. Delivered through the Kv
 * pub/sub, so with Redis every instance's subscribers see every event.
 */
import type { Kv, Unsubscribe } from "../kv/kv.ts";

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

export function createEventBus(kv: Kv): EventBus {
  return {
    emit: (event) => kv.publish(CHANNEL, JSON.stringify(event)),
    on: (handler) =>
      kv.subscribe(CHANNEL, (raw) => {
        try {
          handler(JSON.parse(raw) as DomainEvent);
        } catch {
          // A malformed event from another instance must not kill the subscriber.
        }
      }),
  };
}
