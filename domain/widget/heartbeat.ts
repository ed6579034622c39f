/**
 * The widget's heartbeat: record presence, then hand over the agent messages
 * the visitor has not received yet (also those written while the chat window
 * was closed), and say when to call again.
 */
import type { AppDeps } from "../deps.ts";
import type { ChatbotRow } from "../../db/chatbots.ts";
import type { ConversationRow } from "../../db/conversations.ts";
import { takeUndeliveredAgentMessages } from "../../db/widget_conversations.ts";
import { recordVisitorPresence } from "../visitors/record_presence.ts";
import { currentVisitorConversation } from "./visitor_conversation.ts";
import { toWidgetMessage, type WidgetMessage } from "./widget_message.ts";
import { widgetChannelFor } from "../realtime/widget_channel.ts";
import { openScreenShare, type ScreenShareState } from "../../db/screen_shares.ts";
import { brandingOf } from "../chatbots/branding.ts";

export interface HeartbeatInput {
  visitorId: string;
  conversationId?: string;
  pageUrl?: string;
  pageTitle?: string;
  referrer?: string;
  chatOpen: boolean;
  locale?: string;
  timezone?: string;
  userAgent: string | null;
  /** From a trusted proxy's geo header (routers/doors/client_country.ts). */
  country?: string | null;
}

export interface HeartbeatResult {
  poll_seconds: number;
  conversation: {
    conversation_id: string;
    status: string;
    handoff_state: string;
    /** The conversation's socket channel: only this visitor id is ever told its name. */
    realtime_channel: string;
    /**
     * The open screen-share request or share (branding `screen_share` only), so a widget whose
     * socket missed the request (reconnecting, a reload) still asks the visitor.
     */
    screen_share: { id: number; state: ScreenShareState } | null;
  } | null;
  messages: WidgetMessage[];
}

/** Poll intervals: fast while a person may be typing to an open window, slow when idle. */
export const POLL_SECONDS = { humanOpen: 3, open: 10, idle: 15 } as const;

export async function heartbeat(
  deps: AppDeps,
  bot: ChatbotRow,
  input: HeartbeatInput,
): Promise<HeartbeatResult> {
  // Ownership first: a foreign conversation id must not record anything.
  const conv = await currentVisitorConversation(
    deps.sql,
    bot,
    input.visitorId,
    input.conversationId,
  );
  await recordVisitorPresence(deps, {
    workspaceId: bot.workspace_id,
    chatbotId: bot.id,
    visitorId: input.visitorId,
    pageUrl: input.pageUrl,
    pageTitle: input.pageTitle,
    referrer: input.referrer,
    userAgent: input.userAgent,
    locale: input.locale,
    timezone: input.timezone,
    chatOpen: input.chatOpen,
    country: input.country,
    trackBehavior: brandingOf(bot.branding).behavior_tracking,
  });
  const messages = conv
    ? await takeUndeliveredAgentMessages(deps.sql, bot.workspace_id, conv.id, deps.clock())
    : [];
  const share = conv && conv.status !== "closed" && brandingOf(bot.branding).screen_share
    ? await openScreenShare(deps.sql, bot.workspace_id, conv.id)
    : null;
  return {
    poll_seconds: pollSeconds(conv, input.chatOpen),
    conversation: conv
      ? {
        conversation_id: conv.public_id,
        status: conv.status,
        handoff_state: conv.handoff_state,
        realtime_channel: widgetChannelFor(deps.realtime.credentials, conv.public_id),
        screen_share: share ? { id: Number(share.id), state: share.state } : null,
      }
      : null,
    messages: messages.map(toWidgetMessage),
  };
}

function pollSeconds(conv: ConversationRow | null, chatOpen: boolean): number {
  if (!chatOpen) return POLL_SECONDS.idle;
  const human = conv && (conv.status === "agent" || conv.handoff_state !== "bot_active");
  return human ? POLL_SECONDS.humanOpen : POLL_SECONDS.open;
}
