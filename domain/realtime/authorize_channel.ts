/**
 * broadcasting/auth: signs a subscription for a channel the token holder may
 * join (channel_rules.ts: an agent token its workspace's inbox, presence and
 * conversation channels, its own user channel and, for a role holding
 * `handle-conversations`, the screen channel of a conversation whose bot
 * allows screen sharing; a dashboard token its workspace's dashboard
 * channel), and refuses every other channel, a widget's included. The grant
 * (which token signed for which socket and channel) is recorded so the
 * subscription ends with its token, or when the same rule stops allowing it
 * (subscription_grants.ts, subscription_recheck.ts).
 */
import type { AppDeps } from "../deps.ts";
import type { Auth } from "../auth/tokens.ts";
import { findConversationByPublicId } from "../../db/conversations.ts";
import { Forbidden } from "../errors.ts";
import { type ChannelRef, parseChannel } from "./channels.ts";
import { signSubscription } from "./pusher_signature.ts";
import { recordGrant } from "./subscription_grants.ts";
import { type ConversationFacts, conversationOf, mayJoin } from "./channel_rules.ts";
import { screenShareEnabled } from "../screen_share/screen_share_target.ts";

export interface ChannelAuthorization {
  auth: string;
  /** Presence channels only: the member the signature covers. */
  channel_data?: string;
}

export async function authorizeChannel(
  deps: Pick<AppDeps, "sql" | "realtime" | "kv">,
  who: Auth,
  input: { socketId: string; channelName: string },
): Promise<ChannelAuthorization> {
  const creds = deps.realtime.credentials;
  const ref = parseChannel(input.channelName);
  const holder = {
    ability: who.ability,
    role: who.user.role,
    userId: who.user.id,
    workspaceId: who.workspace.id,
  };
  const conversation = await conversationFacts(deps, who.workspace.id, ref);
  if (!ref || !mayJoin(holder, ref, conversation)) {
    throw new Forbidden("You are not allowed on this channel.");
  }
  await recordGrant(deps.kv, input.socketId, input.channelName, who.tokenId);
  if (ref.kind !== "presence") {
    return { auth: signSubscription(creds, input.socketId, input.channelName) };
  }
  const channelData = JSON.stringify({
    user_id: who.user.id,
    user_info: { name: who.user.name, avatar: who.user.avatarUrl },
  });
  return {
    auth: signSubscription(creds, input.socketId, input.channelName, channelData),
    channel_data: channelData,
  };
}

/** The conversation a conversation or screen channel names, in the caller's workspace only. */
async function conversationFacts(
  deps: Pick<AppDeps, "sql">,
  workspaceId: number,
  ref: ChannelRef | null,
): Promise<ConversationFacts | null> {
  const id = conversationOf(ref);
  if (id === null) return null;
  const conv = await findConversationByPublicId(deps.sql, workspaceId, id);
  if (!conv) return null;
  const screenShare = ref?.kind === "screen" && await screenShareEnabled(deps.sql, conv.chatbot_id);
  return { workspaceId, screenShare };
}
