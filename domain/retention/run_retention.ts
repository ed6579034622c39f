/**
 * One retention run (docs/data-protection.md#retention): for each workspace
 * with a retention period, resolved conversations whose last activity is
 * older than it are deleted with everything that names them (as erasure
 * does: messages, notes, queued alerts, webhook events...), then visitors
 * left with no conversation and not seen since. Each batch is its own short
 * transaction (at most `batchSize` conversations or visitors), so no lock is
 * held for long and the inbox keeps working; the run's audit row, with its
 * counts, commits with the workspace's last batch.
 */
import type { AppDeps } from "../deps.ts";
import type { Executor } from "../../db/client.ts";
import { eraseScopeRows } from "../../db/contact_erasure.ts";
import {
  deleteIdleVisitors,
  expiredConversations,
  retainingWorkspaces,
} from "../../db/retention.ts";
import { recordAudit, systemActor } from "../audit/record_audit.ts";
import { publishEvent } from "../events.ts";

const DAY_MS = 86_400_000;

export interface RetentionCounts {
  conversations: number;
  messages: number;
  visitors: number;
  batches: number;
}

export async function runRetention(
  deps: Pick<AppDeps, "sql" | "clock" | "bus" | "log">,
  batchSize: number,
  /** Called between batches: false stops the run (the lock was lost, the server stops). */
  keepGoing: () => Promise<boolean> = () => Promise.resolve(true),
): Promise<Map<number, RetentionCounts>> {
  const done = new Map<number, RetentionCounts>();
  for (const ws of await retainingWorkspaces(deps.sql)) {
    const now = deps.clock();
    const cutoff = new Date(now.getTime() - ws.retention_days * DAY_MS);
    const counts: RetentionCounts = { conversations: 0, messages: 0, visitors: 0, batches: 0 };
    const audit = (tx: Executor) =>
      recordAudit(tx, {
        workspaceId: ws.id,
        actor: systemActor("retention"),
        action: "retention.run",
        target: null,
        details: { retention_days: ws.retention_days, cutoff: cutoff.toISOString(), ...counts },
        now,
      });
    let more = true;
    while (more && await keepGoing()) {
      const erased = await deps.sql.begin(async (tx) => {
        const scope = await expiredConversations(tx, ws.id, cutoff, batchSize);
        if (!scope.conversationIds.length) return null;
        const c = await eraseScopeRows(tx, ws.id, scope);
        counts.conversations += c.conversations ?? 0;
        counts.messages += c.messages ?? 0;
        counts.visitors += c.visitors ?? 0;
        counts.batches++;
        return scope.publicIds;
      });
      more = erased !== null && erased.length === batchSize;
      if (erased?.length) await tellInstances(deps, ws.id, erased);
    }
    let last = false;
    while (!last && await keepGoing()) {
      await deps.sql.begin(async (tx) => {
        const n = await deleteIdleVisitors(tx, ws.id, cutoff, batchSize);
        counts.visitors += n;
        if (n > 0) counts.batches++;
        last = n < batchSize;
        if (last) await audit(tx);
      });
    }
    done.set(ws.id, counts);
  }
  return done;
}

/** Sockets still on a deleted conversation's channels are ended, as after an erasure. */
async function tellInstances(
  deps: Pick<AppDeps, "bus" | "log">,
  workspaceId: number,
  conversationIds: string[],
): Promise<void> {
  await publishEvent(deps, {
    type: "contact.erased",
    workspaceId,
    erasureId: "retention",
    conversationIds,
    visitors: [],
  });
}
