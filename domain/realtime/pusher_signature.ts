/**
 * The Pusher signatures: a channel subscription is authorised by
 * `key:HMAC-SHA256-hex(secret, "socket_id:channel_name[:channel_data]")`, and
 * a widget's conversation channel carries a token derived the same way from
 * the conversation id, so nothing new is stored and only the server can mint
 * one. Synchronous (node:crypto), because a subscribe is checked inline.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export interface RealtimeCredentials {
  /** Public app key (REALTIME_KEY): the `/app/{key}` path and the prefix of every auth. */
  key: string;
  /** Signing secret: REALTIME_SECRET, or derived from APP_KEY. */
  secret: string;
}

/** The secret used when REALTIME_SECRET is unset: HMAC of a fixed label under APP_KEY. */
export function deriveRealtimeSecret(appKey: Uint8Array): string {
  return createHmac("sha256", appKey).update("parley realtime signing secret v1").digest("hex");
}

/** The `auth` string for one socket and channel, exactly as Pusher computes it. */
export function signSubscription(
  creds: RealtimeCredentials,
  socketId: string,
  channel: string,
  channelData?: string,
): string {
  const subject = channelData === undefined
    ? `${socketId}:${channel}`
    : `${socketId}:${channel}:${channelData}`;
  return `${creds.key}:${createHmac("sha256", creds.secret).update(subject).digest("hex")}`;
}

/** Whether `auth` is the signature of this subscription (constant-time compare). */
export function verifySubscription(
  creds: RealtimeCredentials,
  socketId: string,
  channel: string,
  auth: unknown,
  channelData?: string,
): boolean {
  if (typeof auth !== "string") return false;
  const expected = signSubscription(creds, socketId, channel, channelData);
  const a = new TextEncoder().encode(auth);
  const b = new TextEncoder().encode(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The unguessable part of a widget conversation channel: 128 bits of
 * HMAC(secret, conversation uuid), base64url (only characters Pusher allows in
 * channel names). Given only to the visitor id that owns the conversation.
 */
export function widgetChannelToken(creds: RealtimeCredentials, conversationId: string): string {
  return createHmac("sha256", creds.secret).update(`widget:${conversationId.toLowerCase()}`)
    .digest("base64url").slice(0, 22);
}

/** Constant-time check of a token taken from a channel name. */
export function verifyWidgetToken(
  creds: RealtimeCredentials,
  conversationId: string,
  token: string,
): boolean {
  const expected = widgetChannelToken(creds, conversationId);
  const a = new TextEncoder().encode(token);
  const b = new TextEncoder().encode(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
