/**
 * Which token authorised a private or presence subscription. The socket
 * server sees only a signature, so broadcasting/auth records the grant
 * (socket id and channel → token id) in the Kv, which every instance shares
 * with Redis; the socket reads it on subscribe and the subscription keeps its
 * token. A token revoked, expired or suspended (or its user or workspace)
 * then ends the subscriptions it opened, and a token whose holder may no
 * longer join a channel (a role changed, a bot's screen sharing turned off)
 * ends that one (subscription_recheck.ts, socket_hub.ts, docs/realtime.md).
 */
import type { Kv } from "../../kv/kv.ts";

/** A grant is read within moments of being given (pusher-js subscribes right after authorising). */
const GRANT_TTL_MS = 5 * 60_000;

const grantKey = (socketId: string, channel: string) => `rtgrant:${socketId}:${channel}`;

export async function recordGrant(
  kv: Kv,
  socketId: string,
  channel: string,
  tokenId: number,
): Promise<void> {
  await kv.setCached(grantKey(socketId, channel), String(tokenId), GRANT_TTL_MS);
}

/** The token that authorised this socket on this channel; null when none did (or it was long ago). */
export async function readGrant(kv: Kv, socketId: string, channel: string): Promise<number | null> {
  const raw = await kv.getCached(grantKey(socketId, channel));
  const id = raw === null ? NaN : Number(raw);
  return Number.isSafeInteger(id) ? id : null;
}

/** Why a token's subscriptions end, as the client is told. */
export const TOKEN_ENDED_MESSAGE =
  "The token that authorised this channel is no longer valid (signed out, revoked, expired or suspended).";

/** Why a subscription whose token is still good ends, as the client is told. */
export const CHANNEL_REFUSED_MESSAGE =
  "You are no longer allowed on this channel (your role changed, the bot's screen sharing was turned off, or the conversation is gone).";
