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
} from "../../db/webhook_sweep.ts";
import { recordWebhookEvent } from "./event_recorder.ts";

const BATCH = 500;

/** One pass over both tables; the number of events it recorded. */
export async function sweepMissedEvents(deps: AppDeps): Promise<number> {
  const settledBefore = new Date(
    deps.clock().getTime() - (deps.config.webhooks.sweepSeconds * 1000) / 3,
  );
  let recorded = 0;
  await sweepCursor(deps.sql, "conversations");
  await sweepCursor(deps.sql, "messages");
  if (await skipSweepWithoutEndpoints(deps.sql, "conversations")) {
    await skipSweepWithoutEndpoints(deps.sql, "messages");
    return 0;
  }
  for (let more = true; more;) {
    const after = await sweepCursor(deps.sql, "conversations");
    const rows = await conversationsToSweep(deps.sql, after, settledBefore, BATCH);
    for (const c of rows.filter((r) => r.missing)) {
      recorded += await recordWebhookEvent(deps, {
        type: "conversation.created",
        workspaceId: Number(c.workspace_id),
        conversationId: c.public_id,
        chatbotId: Number(c.chatbot_id),
      }, "conversation.created");
    }
    if (rows.length) await advanceSweepCursor(deps.sql, "conversations", rows.at(-1)!.id);
    more = rows.length === BATCH;
  }
  for (let more = true; more;) {
    const after = await sweepCursor(deps.sql, "messages");
    const rows = await messagesToSweep(deps.sql, after, settledBefore, BATCH);
    for (const m of rows.filter((r) => r.missing)) {
      recorded += await recordWebhookEvent(deps, {
        type: "message.created",
        workspaceId: Number(m.workspace_id),
        conversationId: m.public_id,
        messageId: Number(m.id),
        role: m.role,
        content: m.content,
        createdAt: m.created_at.toISOString(),
      }, "message.created");
    }
    if (rows.length) await advanceSweepCursor(deps.sql, "messages", rows.at(-1)!.id);
    more = rows.length === BATCH;
  }
  return recorded;
}
