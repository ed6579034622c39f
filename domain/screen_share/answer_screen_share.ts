/**
 * The visitor's side of a screen share, from the widget (ownership-checked by
 * `visitor_id`): `accept` a waiting request (only then does the widget load
 * its recorder), `decline` it, `stop` sharing, or `leave` (the page is being
 * left: the share ends, and a new page asks again). Accepting needs the
 * bot's flag still on and the conversation open.
 */
import type { AppDeps } from "../deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import {
  finishScreenShare,
  latestScreenShare,
  openScreenShare,
  startScreenShare,
} from "../../db/screen_shares.ts";
import { Conflict, Forbidden } from "../errors.ts";
import { publishEvent } from "../events.ts";
import { requireVisitorConversation } from "../widget/visitor_conversation.ts";
import { markShareSeen } from "./screen_share_liveness.ts";
import { screenShareEnabled } from "./screen_share_target.ts";
import {
  CONVERSATION_CLOSED,
  SCREEN_SHARE_OFF,
  type ScreenShareView,
  screenShareView,
} from "./screen_share_view.ts";

export type VisitorScreenAction = "accept" | "decline" | "stop" | "leave";

export const ALREADY_SHARING = "This conversation's screen is already shared from another tab.";

export const NO_REQUEST = "No agent is asking to see your screen in this conversation.";

export async function answerScreenShare(
  deps: Pick<AppDeps, "sql" | "bus" | "log" | "clock" | "kv" | "config">,
  bot: ChatbotRow,
  input: { visitorId: string; conversationId: string; action: VisitorScreenAction },
): Promise<{ screen_share: ScreenShareView | null }> {
  const now = deps.clock();
  const result = await deps.sql.begin(async (tx) => {
    const conv = await requireVisitorConversation(
      tx,
      bot,
      input.visitorId,
      input.conversationId,
      { forUpdate: true },
    );
    const open = await openScreenShare(tx, bot.workspace_id, conv.id);
    if (input.action === "accept") {
      // Read now, under a share lock: the bot loaded before this transaction may be stale.
      if (!(await screenShareEnabled(tx, bot.id, { lock: true }))) {
        throw new Forbidden(SCREEN_SHARE_OFF);
      }
      if (conv.status === "closed") throw new Conflict(CONVERSATION_CLOSED);
      if (!open) throw new Conflict(NO_REQUEST);
      // One recorder per share: a second tab's accept would mix two pages in one view.
      if (open.state === "active") throw new Conflict(ALREADY_SHARING);
      return { row: (await startScreenShare(tx, open.id, now))!, changed: true, conv };
    }
    if (input.action === "decline" && open?.state !== "requested") {
      throw new Conflict(NO_REQUEST);
    }
    const ended = await finishScreenShare(tx, bot.workspace_id, conv.id, {
      state: input.action === "decline" ? "declined" : "ended",
      by: input.action === "leave" ? "left" : "visitor",
      now,
    });
    if (ended) return { row: ended, changed: true, conv };
    return { row: await latestScreenShare(tx, bot.workspace_id, conv.id), changed: false, conv };
  });
  const share = result.row ? screenShareView(result.row) : null;
  // The idle clock starts at consent: a page that never sends a batch ends as `left`.
  if (result.changed && share?.state === "active") {
    await markShareSeen(deps.kv, share.id, deps.config.screenShareIdleSeconds);
  }
  if (result.changed && share) {
    await publishEvent(deps, {
      type: "screen_share.updated",
      workspaceId: bot.workspace_id,
      conversationId: result.conv.public_id,
      share,
    });
  }
  return { screen_share: share };
}
