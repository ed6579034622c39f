/** The conversation's latest screen share (any state) and whether its bot allows one. */
import type { AppDeps } from "../deps.ts";
import { latestScreenShare } from "../../db/screen_shares.ts";
import { loadScreenShareTarget } from "./screen_share_target.ts";
import { type ScreenShareView, screenShareView } from "./screen_share_view.ts";

export async function getScreenShare(
  deps: Pick<AppDeps, "sql">,
  actor: { workspaceId: number },
  publicId: string,
): Promise<{ enabled: boolean; screen_share: ScreenShareView | null }> {
  const { conversation, enabled } = await loadScreenShareTarget(
    deps.sql,
    actor.workspaceId,
    publicId,
  );
  const last = await latestScreenShare(deps.sql, actor.workspaceId, conversation.id);
  return { enabled, screen_share: last ? screenShareView(last) : null };
}
