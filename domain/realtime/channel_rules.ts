/**
 * Who may join which private or presence channel: the one rule behind both
 * broadcasting/auth (authorize_channel.ts), which signs a subscription, and
 * the socket server's re-check (subscription_recheck.ts), which ends a
 * subscription the rule no longer allows (its holder's role changed, its
 * bot's screen sharing was turned off, its conversation is gone). Pure: the
 * callers load the facts, one at a time or in one batch.
 */
import type { Ability } from "../../db/tokens.ts";
import { can, type Role } from "../auth/permissions.ts";
import type { ChannelRef } from "./channels.ts";

/** The token asking, as the rule sees it. */
export interface ChannelHolder {
  ability: Ability;
  role: Role;
  userId: number;
  workspaceId: number;
}

/** A conversation named by a conversation or screen channel. */
export interface ConversationFacts {
  workspaceId: number;
  /** Its bot's branding `screen_share`. */
  screenShare: boolean;
}

/** Whether the channel needs its conversation's facts (null when it names none). */
export function conversationOf(ref: ChannelRef | null): string | null {
  return ref?.kind === "conversation" || ref?.kind === "screen" ? ref.conversationId : null;
}

/**
 * An agent token opens its workspace's inbox and presence channels, its own
 * user channel, its workspace's conversations, and their screen channels
 * while the bot allows screen sharing and the holder's role holds
 * `handle-conversations`; a dashboard token opens its workspace's dashboard
 * channel while the role may see the dashboard. Nothing else, a widget's
 * channel included.
 */
export function mayJoin(
  holder: ChannelHolder,
  ref: ChannelRef | null,
  conversation: ConversationFacts | null,
): boolean {
  if (!ref) return false;
  const own = (workspaceId: number) => workspaceId === holder.workspaceId;
  if (holder.ability === "dashboard") {
    return ref.kind === "dashboard" && own(ref.workspaceId) && can(holder.role, "view-dashboard");
  }
  if (holder.ability !== "agent") return false;
  switch (ref.kind) {
    case "workspace":
    case "presence":
      return own(ref.workspaceId);
    case "user":
      return ref.userId === holder.userId;
    case "conversation":
      return conversation !== null && own(conversation.workspaceId);
    case "screen":
      // The visitor's page: only for those who handle conversations, and only while the bot allows it.
      return can(holder.role, "handle-conversations") && conversation !== null &&
        own(conversation.workspaceId) && conversation.screenShare;
    default:
      return false;
  }
}
