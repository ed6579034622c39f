/**
 * An agent ends the conversation's screen share (or withdraws a request the
 * visitor has not answered). Stopping when nothing is open changes nothing.
 */
import type { AppDeps } from "../deps.ts";
import { finishScreenShare, latestScreenShare } from "../../db/screen_shares.ts";
import { publishEvent } from "../events.ts";
import { loadScreenShareTarget } from "./screen_share_target.ts";
import { type ScreenShareView, screenShareView } from "./screen_share_view.ts";

export async function stopScreenShare(
  deps: Pick<AppDeps, "sql" | "bus" | "log" | "clock">,
  actor: { workspaceId: number },
  publicId: string,
): Promise<{ screen_share: ScreenShareView | null }> {
  const { conversation } = await loadScreenShareTarget(deps.sql, actor.workspaceId, publicId);
  const ended = await finishScreenShare(deps.sql, actor.workspaceId, conversation.id, {
    state: "ended",
    by: "agent",
    now: deps.clock(),
  });
  if (ended) {
    const share = screenShareView(ended);
    await publishEvent(deps, {
      type: "screen_share.updated",
      workspaceId: actor.workspaceId,
      conversationId: conversation.public_id,
      share,
    });
    return { screen_share: share };
  }
  const last = await latestScreenShare(deps.sql, actor.workspaceId, conversation.id);
  return { screen_share: last ? screenShareView(last) : null };
}
