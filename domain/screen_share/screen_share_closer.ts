/**
 * A screen share ends with its conversation: whenever a conversation is
 * closed (resolved, reset by the visitor, the visitor blocked), its open
 * request or share is ended (`ended_by: closed`) and both sides are told. It
 * listens on the event bus, so every close path is covered; with several
 * instances each sees the event, and the conditional update lets one report it.
 */
import type { AppDeps, Worker } from "../deps.ts";
import { endScreenShareOfClosed } from "../../db/screen_shares.ts";
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
  return {
    name: "screen-share-closer",
    async stop() {
      await (await unsubscribe)();
      await Promise.all(pending);
    },
  };
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
