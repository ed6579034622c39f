/**
 * An agent asks to see the visitor's page (branding `screen_share`). The
 * widget is told through its conversation channel and asks the visitor for
 * consent; nothing is recorded before the visitor accepts. Asking while a
 * request waits repeats it; asking while sharing asks the widget for a new
 * full view (an inbox that joined late, or reloaded). Refused with 403 when
 * the bot's flag is off and 409 when the conversation is closed.
 */
import type { AppDeps } from "../deps.ts";
import { insertScreenShare, openScreenShare } from "../../db/screen_shares.ts";
import { Conflict, Forbidden } from "../errors.ts";
import { publishEvent } from "../events.ts";
import { loadScreenShareTarget } from "./screen_share_target.ts";
import {
  CONVERSATION_CLOSED,
  SCREEN_SHARE_OFF,
  type ScreenShareView,
  screenShareView,
} from "./screen_share_view.ts";

export async function requestScreenShare(
  deps: Pick<AppDeps, "sql" | "bus" | "log" | "clock">,
  actor: { workspaceId: number; userId: number },
  publicId: string,
): Promise<{ screen_share: ScreenShareView }> {
  const now = deps.clock();
  const { row, resync, conversationId } = await deps.sql.begin(async (tx) => {
    const { conversation, enabled } = await loadScreenShareTarget(
      tx,
      actor.workspaceId,
      publicId,
      { forUpdate: true },
    );
    if (!enabled) throw new Forbidden(SCREEN_SHARE_OFF);
    if (conversation.status === "closed") throw new Conflict(CONVERSATION_CLOSED);
    const open = await openScreenShare(tx, actor.workspaceId, conversation.id);
    const conversationId = conversation.public_id;
    if (open) return { row: open, resync: open.state === "active", conversationId };
    const row = await insertScreenShare(tx, {
      workspaceId: actor.workspaceId,
      conversationId: conversation.id,
      requestedBy: actor.userId,
      now,
    });
    return { row, resync: false, conversationId };
  });
  const share = screenShareView(row);
  await publishEvent(deps, {
    type: "screen_share.updated",
    workspaceId: actor.workspaceId,
    conversationId,
    share,
    ...(resync ? { resync: true } : {}),
  });
  return { screen_share: share };
}
