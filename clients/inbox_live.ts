/**
 * Keeps a client's inbox current: the workspace's realtime channel (and the
 * open conversation's) say when something changed; while the socket is not
 * connected (realtime disabled, a proxy without WebSockets, a reconnect) the
 * inbox is polled instead, so it keeps working without realtime. Following
 * the inbox also puts the agent on the workspace's presence channel: an agent
 * with an inbox (or `tail`) open is online for the visitors' handoff answer.
 */
import type { AgentClient } from "./agent_client.ts";
import { agentChannels, RealtimeConnection, type RealtimeState } from "./realtime.ts";

export interface InboxLiveOptions {
  /** The typed client, to sign channel subscriptions. */
  client: AgentClient;
  /** The socket server's `ws(s)://` address, or the server's origin (same host and port). */
  baseUrl: string;
  /** The server's REALTIME_KEY; null: no socket, polling only. */
  realtimeKey: string | null;
  /** The token's workspace (`company.id` of login or me). */
  workspaceId: number;
  /** Something may have changed: reload what is shown. */
  onChange: (why: string) => void;
  /** Every realtime event, as received. */
  onEvent?: (channel: string, event: string, data: unknown) => void;
  onState?: (state: RealtimeState) => void;
  /** A channel was joined (again, after a reconnect): the screen viewer then asks for a full view. */
  onSubscribed?: (channel: string) => void;
  /** A channel was refused. */
  onSubscribeError?: (channel: string, message: string) => void;
  /** Poll interval while the socket is down (default 4 s); with it up, a 60 s safety net. */
  pollMs?: number;
}

export interface InboxLive {
  /** Follow this conversation's private channel too (notes, typing); null: none. */
  follow(conversationId: string | null): void;
  /** Follow this conversation's screen channel (the visitor's shared page); null: none. */
  followScreen(conversationId: string | null): void;
  /** Tells the followed conversation's visitor and agents that this agent is typing. */
  typing(typing: boolean, name: string): void;
  readonly state: RealtimeState;
  close(): void;
}

const SAFETY_NET_MS = 60_000;

export function followInbox(opts: InboxLiveOptions): InboxLive {
  const pollMs = opts.pollMs ?? 4000;
  let followed: string | null = null;
  let lastChange = Date.now();
  const changed = (why: string) => {
    lastChange = Date.now();
    opts.onChange(why);
  };
  const socket = opts.realtimeKey === null ? null : new RealtimeConnection({
    baseUrl: opts.baseUrl,
    key: opts.realtimeKey,
    authorize: (socketId, channel) => authorizeChannel(opts.client, socketId, channel),
    onEvent: (channel, event, data) => {
      opts.onEvent?.(channel, event, data);
      // Client events (typing) change nothing stored, nor does the shared page: no reload.
      if (!event.startsWith("client-") && event !== "screen_share.events") changed(event);
    },
    onState: (state) => {
      opts.onState?.(state);
      // Whatever happened while disconnected is caught up on reconnect.
      if (state === "connected") changed("connected");
    },
    // From here on every change arrives as an event: one more catch-up closes the gap.
    // (The presence channel carries no inbox change: its subscription needs no catch-up.)
    onSubscribed: (channel) => {
      opts.onSubscribed?.(channel);
      if (!channel.startsWith("presence-") && !channel.startsWith("private-screen.")) {
        changed("subscribed");
      }
    },
    onSubscribeError: (channel, message) => opts.onSubscribeError?.(channel, message),
  });
  let screen: string | null = null;
  socket?.subscribe(agentChannels.workspace(opts.workspaceId));
  // Following the inbox is being online: the widget's handoff answer (`agents_online`) counts
  // the agents on this channel, and the socket's close (the last tab, or tail stopping) ends it.
  socket?.subscribe(agentChannels.presence(opts.workspaceId));
  if (!socket) opts.onState?.("unavailable");
  const timer = setInterval(() => {
    const quiet = Date.now() - lastChange;
    if (socket?.state !== "connected" ? quiet >= pollMs - 50 : quiet >= SAFETY_NET_MS) {
      changed("poll");
    }
  }, Math.min(pollMs, 1000));
  return {
    follow(conversationId) {
      if (conversationId === followed) return;
      if (followed) socket?.unsubscribe(agentChannels.conversation(followed));
      followed = conversationId;
      if (followed) socket?.subscribe(agentChannels.conversation(followed));
    },
    followScreen(conversationId) {
      if (conversationId === screen) return;
      if (screen) socket?.unsubscribe(agentChannels.screen(screen));
      screen = conversationId;
      if (screen) socket?.subscribe(agentChannels.screen(screen));
    },
    typing(typing, name) {
      if (followed) {
        socket?.trigger(agentChannels.conversation(followed), "client-typing", { typing, name });
      }
    },
    get state() {
      return socket?.state ?? "unavailable";
    },
    close() {
      clearInterval(timer);
      socket?.close();
    },
  };
}

/** Signs a subscription through POST /api/agent/broadcasting/auth (`agent.broadcastingAuth`). */
function authorizeChannel(client: AgentClient, socketId: string, channel: string) {
  return client.agent.broadcastingAuth.mutate({ socket_id: socketId, channel_name: channel });
}
