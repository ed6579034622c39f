/** The subscribed event types as given: known, at least one, each once. */
import { Invalid } from "../errors.ts";
import { WEBHOOK_EVENT_TYPES } from "./event_types.ts";

export function checkEventTypes(given: string[]): string[] {
  const known = new Set<string>(WEBHOOK_EVENT_TYPES);
  const unknown = given.filter((t) => !known.has(t));
  if (unknown.length > 0) {
    throw Invalid.field(
      "events",
      `Unknown event type ${unknown[0]}; choose from ${WEBHOOK_EVENT_TYPES.join(", ")}.`,
    );
  }
  if (given.length === 0) throw Invalid.field("events", "Subscribe to at least one event type.");
  return [...new Set(given)];
}
