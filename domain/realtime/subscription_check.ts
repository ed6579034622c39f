/**
 * Whether a `pusher:subscribe` may join its channel: private and presence
 * channels need the signature broadcasting/auth gave for this very socket
 * (presence also its `channel_data` member); the only public channels are
 * widget conversation channels whose token matches. Pure: the hub applies it.
 */
import { needsSignature, parseChannel } from "./channels.ts";
import {
  type RealtimeCredentials,
  verifySubscription,
  verifyWidgetToken,
} from "./pusher_signature.ts";
import type { MemberInfo } from "./presence_registry.ts";

export type SubscriptionCheck =
  | { ok: true; userId: string | null; info: MemberInfo }
  | { ok: false; status: number; error: string };

export function checkSubscription(
  creds: RealtimeCredentials,
  socketId: string,
  channel: string,
  data: Record<string, unknown>,
): SubscriptionCheck {
  const refuse = (status: number, error: string): SubscriptionCheck => ({
    ok: false,
    status,
    error,
  });
  const ref = parseChannel(channel);
  if (!ref) return refuse(404, `No such channel: ${channel}`);
  if (!needsSignature(channel)) {
    return ref.kind === "widget" && verifyWidgetToken(creds, ref.conversationId, ref.token)
      ? { ok: true, userId: null, info: null }
      : refuse(401, "Invalid channel token");
  }
  const channelData = typeof data.channel_data === "string" ? data.channel_data : undefined;
  if (ref.kind === "presence" && channelData === undefined) {
    return refuse(401, "Presence channels need channel_data");
  }
  if (!verifySubscription(creds, socketId, channel, data.auth, channelData)) {
    return refuse(401, "Invalid signature");
  }
  if (ref.kind !== "presence") return { ok: true, userId: null, info: null };
  const member = parseMember(channelData!);
  return member ? { ok: true, ...member } : refuse(401, "channel_data needs a user_id");
}

function parseMember(channelData: string): { userId: string; info: MemberInfo } | null {
  try {
    const d = JSON.parse(channelData) as { user_id?: unknown; user_info?: unknown };
    const id = d.user_id;
    if (typeof id !== "string" && typeof id !== "number") return null;
    return { userId: String(id), info: d.user_info ?? null };
  } catch {
    return null;
  }
}
