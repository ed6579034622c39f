/**
 * A widget conversation's channel name, `conversation-widget.{uuid}.{token}`:
 * public in Pusher's sense (no signature per socket, so the widget needs no
 * token and no extra endpoint), but its token is an HMAC of the conversation
 * id under the realtime secret, handed out only by the ownership-checked
 * heartbeat. Another visitor cannot derive or guess it.
 */
import { channelName } from "./channels.ts";
import { type RealtimeCredentials, widgetChannelToken } from "./pusher_signature.ts";

export function widgetChannelFor(creds: RealtimeCredentials, conversationId: string): string {
  return channelName.widget(conversationId, widgetChannelToken(creds, conversationId));
}
