/**
 * broadcasting/auth: signs a subscription for a channel the token holder may
 * join, and refuses every other channel, a widget's included. An agent token
 * opens its workspace's inbox channels, its own user channel, conversations
 * of its workspace, the workspace presence channel (with its name and
 * avatar) and the screen channel of a conversation whose bot allows screen
 * sharing; a dashboard token (an owner, administrator or viewer signed in to
 * /dashboard) opens its workspace's dashboard channel and nothing else, and
 * an agent token never opens that one. The grant (which token
 * signed for which socket and channel) is recorded so the subscription ends
 * with its token (subscription_grants.ts).
 */
import type { AppDeps } from "../deps.ts";
import type { Auth } from "../auth/tokens.ts";
import { findConversationByPublicId } from "../../db/conversations.ts";
import { Forbidden } from "../errors.ts";
import { parseChannel } from "./channels.ts";
import { signSubscription } from "./pusher_signature.ts";
import { recordGrant } from "./subscription_grants.ts";
import { can } from "../auth/permissions.ts";
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
  const refuse = () => new Forbidden("You are not allowed on this channel.");
  if (who.ability === "dashboard") {
    if (ref?.kind !== "dashboard" || ref.workspaceId !== who.workspace.id) throw refuse();
    await recordGrant(deps.kv, input.socketId, input.channelName, who.tokenId);
    return { auth: signSubscription(creds, input.socketId, input.channelName) };
  }
  if (who.ability !== "agent") throw refuse();
  switch (ref?.kind) {
    case "workspace":
      if (ref.workspaceId !== who.workspace.id) throw refuse();
      break;
    case "user":
      if (ref.userId !== who.user.id) throw refuse();
      break;
    case "conversation": {
      const conv = await findConversationByPublicId(deps.sql, who.workspace.id, ref.conversationId);
      if (!conv) throw refuse();
      break;
    }
    case "screen": {
      // The visitor's page: only agents who handle this workspace's conversations, and only
      // where the bot allows screen sharing.
      if (!can(who.user.role, "handle-conversations")) throw refuse();
      const conv = await findConversationByPublicId(deps.sql, who.workspace.id, ref.conversationId);
      if (!conv || !(await screenShareEnabled(deps.sql, conv.chatbot_id))) throw refuse();
      break;
    }
    case "presence": {
      if (ref.workspaceId !== who.workspace.id) throw refuse();
      const channelData = JSON.stringify({
        user_id: who.user.id,
        user_info: { name: who.user.name, avatar: who.user.avatarUrl },
      });
      await recordGrant(deps.kv, input.socketId, input.channelName, who.tokenId);
      return {
        auth: signSubscription(creds, input.socketId, input.channelName, channelData),
        channel_data: channelData,
      };
    }
    default:
      throw refuse();
  }
  await recordGrant(deps.kv, input.socketId, input.channelName, who.tokenId);
  return { auth: signSubscription(creds, input.socketId, input.channelName) };
}
