/**
 * A batch of the visitor's page recording (rrweb events, recorded with every
 * input masked) goes to the agents on `private-screen.{uuid}`. Nothing is
 * stored. Only the conversation's visitor, and only while its share is active:
 * otherwise 409, which tells the widget to stop recording at once. An empty
 * batch is the widget's keep-alive: it only marks the share as seen.
 */
import type { AppDeps } from "../deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import { openScreenShare } from "../../db/screen_shares.ts";
import { Conflict } from "../errors.ts";
import { publishEvent } from "../events.ts";
import { requireVisitorConversation } from "../widget/visitor_conversation.ts";
import { markShareSeen } from "./screen_share_liveness.ts";

export const NOT_SHARING = "Screen sharing is not active in this conversation.";

export async function relayScreenEvents(
  deps: Pick<AppDeps, "sql" | "bus" | "log" | "kv" | "config">,
  bot: ChatbotRow,
  input: { visitorId: string; conversationId: string; events: string[] },
): Promise<{ accepted: number }> {
  const conv = await requireVisitorConversation(
    deps.sql,
    bot,
    input.visitorId,
    input.conversationId,
  );
  const share = conv.status === "closed"
    ? null
    : await openScreenShare(deps.sql, bot.workspace_id, conv.id);
  if (share?.state !== "active") throw new Conflict(NOT_SHARING);
  await markShareSeen(deps.kv, Number(share.id), deps.config.screenShareIdleSeconds);
  if (input.events.length) {
    await publishEvent(deps, {
      type: "screen_share.events",
      workspaceId: bot.workspace_id,
      conversationId: conv.public_id,
      shareId: Number(share.id),
      events: input.events,
    });
  }
  return { accepted: input.events.length };
}
