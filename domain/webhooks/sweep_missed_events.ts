/**
 * The recovery sweep: events are recorded by the bus subscriber just after
 * the action commits, so an instance that dies in between would lose them.
 * Every WEBHOOK_SWEEP_SECONDS each instance reads the messages and
 * conversations stored since its cursor (older than a third of that period,
 * so the subscriber had its chance) and records the `message.created` and
 * `conversation.created` events a subscribed endpoint has not got, under the
 * keys the subscriber uses, so nothing is recorded twice.
 */
import type { AppDeps } from "../deps.ts";
import {
  advanceSweepCursor,
  conversationsToSweep,
  messagesToSweep,
  skipSweepWithoutEndpoints,
  sweepCursor,
  type SweepSource,
} from "../../db/webhook_sweep.ts";
import type { DomainEvent } from "../../app/event_bus.ts";
import { recordWebhookEvent } from "./event_recorder.ts";

const BATCH = 500;

/** Read one table from its cursor to the settle time, recording what is missing. */
async function drain<R extends { id: number; missing: boolean }>(
  deps: AppDeps,
  source: SweepSource,
  read: (afterId: number) => Promise<R[]>,
  eventOf: (row: R) => DomainEvent,
): Promise<number> {
  let recorded = 0;
  for (let more = true; more;) {
    const rows = await read(await sweepCursor(deps.sql, source));
    for (const row of rows.filter((r) => r.missing)) {
      const event = eventOf(row);
      recorded += await recordWebhookEvent(deps, event, event.type);
    }
    if (rows.length) await advanceSweepCursor(deps.sql, source, rows.at(-1)!.id);
    more = rows.length === BATCH;
  }
  return recorded;
}

/** One pass over both tables, conversations first; the number of events it recorded. */
export async function sweepMissedEvents(deps: AppDeps): Promise<number> {
  const settled = new Date(deps.clock().getTime() - (deps.config.webhooks.sweepSeconds * 1000) / 3);
  await sweepCursor(deps.sql, "conversations");
  await sweepCursor(deps.sql, "messages");
  if (await skipSweepWithoutEndpoints(deps.sql, "conversations")) {
    await skipSweepWithoutEndpoints(deps.sql, "messages");
    return 0;
  }
  const conversations = await drain(
    deps,
    "conversations",
    (after) => conversationsToSweep(deps.sql, after, settled, BATCH),
    (c) => ({
      type: "conversation.created",
      workspaceId: Number(c.workspace_id),
      conversationId: c.public_id,
      chatbotId: Number(c.chatbot_id),
    }),
  );
  const messages = await drain(
    deps,
    "messages",
    (after) => messagesToSweep(deps.sql, after, settled, BATCH),
    (m) => ({
      type: "message.created",
      workspaceId: Number(m.workspace_id),
      conversationId: m.public_id,
      messageId: Number(m.id),
      role: m.role,
      content: m.content,
      createdAt: m.created_at.toISOString(),
    }),
  );
  return conversations + messages;
}
