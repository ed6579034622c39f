/**
 * Pusher protocol 7 frames as the server writes them: `{event, channel?,
 * data}` with `data` itself a JSON string, and the protocol's close codes.
 */

/** Close and error codes of the Pusher protocol (4000–4099: do not reconnect; 4100–4199: back off; 4200–4299: reconnect now; 4300–4399: other). */
export const PusherCode = {
  appNotFound: 4001,
  unsupportedProtocol: 4007,
  noProtocol: 4008,
  overCapacity: 4100,
  /** Ours, in Pusher's "reconnect after a back-off" range: the address holds REALTIME_MAX_PER_IP sockets. */
  tooManyConnections: 4101,
  reconnectNow: 4200,
  pongNotReceived: 4201,
  clientEventRateLimited: 4301,
} as const;

/** A server frame; `data` is serialised once here, so a broadcast encodes once for all sockets. */
export function frame(event: string, data: unknown, channel?: string): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return channel === undefined
    ? JSON.stringify({ event, data: payload })
    : JSON.stringify({ event, channel, data: payload });
}

export function errorFrame(code: number | null, message: string): string {
  return JSON.stringify({ event: "pusher:error", data: { code, message } });
}

/** Sent on the channel, so pusher-js raises `pusher:subscription_error` on that channel. */
export function subscriptionErrorFrame(channel: string, status: number, error: string): string {
  return frame("pusher:subscription_error", { type: "AuthError", error, status }, channel);
}

/** A client frame, parsed defensively: anything malformed is null. */
export interface ClientFrame {
  event: string;
  channel?: string;
  data: unknown;
}

export function parseClientFrame(raw: unknown): ClientFrame | null {
  if (typeof raw !== "string") return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== "object") return null;
  const f = parsed as Record<string, unknown>;
  if (typeof f.event !== "string") return null;
  // Some clients send `data` as a JSON string, others as an object: read both.
  let data = f.data;
  if (typeof data === "string" && f.event.startsWith("pusher:")) {
    try {
      data = JSON.parse(data);
    } catch { /* keep the string */ }
  }
  return {
    event: f.event,
    channel: typeof f.channel === "string" ? f.channel : undefined,
    data,
  };
}
