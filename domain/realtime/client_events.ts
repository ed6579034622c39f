/**
 * Where a client event goes (docs/realtime.md): Pusher's rule allows
 * `client-…` events only on private and presence channels; a widget channel
 * allows `client-typing` alone, the dashboard's channel none. Typing also crosses between a conversation's
 * agent channel and its widget channel, reduced to a role, a flag and an
 * agent's name, so neither side can pass anything else to the other. Pure:
 * the hub sends what this returns.
 */
import { channelName, needsSignature, parseChannel } from "./channels.ts";
import type { RealtimeCredentials } from "./pusher_signature.ts";
import { widgetChannelFor } from "./widget_channel.ts";

export interface ClientEventRoute {
  channel: string;
  data: unknown;
  /** Whether the sender's presence user id goes along (on the channel it was sent to). */
  withUser: boolean;
}

/** The channels and data to relay, or the reason the event is refused. */
export function routeClientEvent(
  creds: RealtimeCredentials,
  channel: string,
  event: string,
  data: unknown,
): ClientEventRoute[] | string {
  const ref = parseChannel(channel);
  const typing = event === "client-typing";
  if (ref?.kind === "widget") {
    if (!typing) return "Client events are only allowed on private and presence channels";
    const visitor = typingOf(data, "visitor");
    return [
      { channel, data: visitor, withUser: false },
      { channel: channelName.conversation(ref.conversationId), data: visitor, withUser: false },
    ];
  }
  // The visitor's page is read-only: agents send nothing on it, not even to each other.
  if (ref?.kind === "screen") return "Client events are not allowed on screen channels";
  if (!needsSignature(channel)) {
    return "Client events are only allowed on private and presence channels";
  }
  // The dashboard's channel carries the server's events only: a viewer signs it too.
  if (ref?.kind === "dashboard") return "Client events are not allowed on the dashboard channel";
  const routes: ClientEventRoute[] = [{ channel, data, withUser: true }];
  if (typing && ref?.kind === "conversation") {
    routes.push({
      channel: widgetChannelFor(creds, ref.conversationId),
      data: typingOf(data, "agent"),
      withUser: false,
    });
  }
  return routes;
}

/** Typing as relayed between the two sides: a role, a flag, and an agent's name at most. */
function typingOf(data: unknown, role: "visitor" | "agent"): Record<string, unknown> {
  const d = (data && typeof data === "object" ? data : {}) as Record<string, unknown>;
  const out: Record<string, unknown> = { role, typing: d.typing !== false };
  if (role === "agent" && typeof d.name === "string") out.name = d.name.slice(0, 80);
  return out;
}
