/**
 * Ends screen shares nobody ended by hand:
 * - with their conversation: whenever a conversation is closed (resolved,
 *   reset by the visitor, the visitor blocked), its open request or share is
 *   ended (`ended_by: closed`). It listens on the event bus, so every close
 *   path is covered;
 * - when the shared page went quiet: every half SCREEN_SHARE_IDLE_SECONDS,
 *   active shares not seen for that long end as `left` (screen_share_liveness.ts).
 * Both sides are told. With several instances each does this, and the
 * conditional updates let only one report each end.
 */
import type { AppDeps, Worker } from "../deps.ts";
import {
  activeScreenShares,
  endIdleScreenShare,
  endScreenShareOfClosed,
} from "../../db/screen_shares.ts";
import { KvUnavailable } from "../../kv/kv.ts";
import { shareSeenLately } from "./screen_share_liveness.ts";
import type { ParleyEvent } from "../events.ts";
import { publishEvent } from "../events.ts";
import { screenShareView } from "./screen_share_view.ts";

const CLOSING_REASONS = new Set(["resolve", "visitor_reset", "block"]);

export function startScreenShareCloser(deps: AppDeps): Worker {
  const pending = new Set<Promise<void>>();
  const unsubscribe = deps.bus.on((raw) => {
    const e = raw as ParleyEvent;
    if (e.type !== "conversation.updated" || !CLOSING_REASONS.has(e.reason)) return;
    const p = endWithConversation(deps, e.workspaceId, e.conversationId).catch((err) =>
      deps.log.warn("screen share not ended with its conversation", { err: String(err) })
    ).finally(() => pending.delete(p));
    pending.add(p);
  });
  const idleMs = deps.config.screenShareIdleSeconds * 1000;
  let sweeping: Promise<void> | null = null;
  const timer = setInterval(() => {
    sweeping ??= endIdleShares(deps, idleMs).catch((err) => {
      if (!(err instanceof KvUnavailable)) {
        deps.log.warn("idle screen shares not swept", { err: String(err) });
      }
    }).finally(() => sweeping = null);
  }, Math.max(1000, idleMs / 2));
  return {
    name: "screen-share-closer",
    async stop() {
      clearInterval(timer);
      await (await unsubscribe)();
      await Promise.all([...pending, sweeping]);
    },
  };
}

async function endIdleShares(deps: AppDeps, idleMs: number): Promise<void> {
  const now = deps.clock();
  for (const share of await activeScreenShares(deps.sql)) {
    const started = share.started_at?.getTime() ?? 0;
    if (now.getTime() - started < idleMs) continue;
    if (await shareSeenLately(deps.kv, Number(share.id))) continue;
    const ended = await endIdleScreenShare(deps.sql, Number(share.id), deps.clock());
    if (!ended) continue;
    await publishEvent(deps, {
      type: "screen_share.updated",
      workspaceId: Number(ended.workspace_id),
      conversationId: ended.conversation_public_id,
      share: screenShareView(ended),
    });
  }
}

async function endWithConversation(
  deps: AppDeps,
  workspaceId: number,
  conversationId: string,
): Promise<void> {
  const ended = await endScreenShareOfClosed(deps.sql, workspaceId, conversationId, deps.clock());
  if (!ended) return;
  await publishEvent(deps, {
    type: "screen_share.updated",
    workspaceId,
    conversationId,
    share: screenShareView(ended),
  });
}
