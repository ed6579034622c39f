/**
 * The dashboard's realtime feed: one Pusher-protocol socket (the inbox's
 * client, `realtime.ts`) on the workspace's `private-dashboard.{id}` channel,
 * signed by POST /api/dashboard/broadcasting/auth. Screens listen for its
 * events (`source.progress`, `source.changed`, `stats.changed`) and ask
 * whether it is `live`: while it is not (no realtime key, a proxy without
 * WebSockets, a reconnect, a refused subscription) they poll instead.
 */
import type { DashboardClient } from "./dashboard_client.ts";
import { RealtimeConnection, type RealtimeState } from "./realtime.ts";

export interface DashboardLiveOptions {
  client: DashboardClient;
  /** The socket server's `ws(s)://` address, or the server's origin (the server names it). */
  baseUrl: string;
  /** The server's REALTIME_KEY; null: no socket, screens poll. */
  realtimeKey: string | null;
  workspaceId: number;
}

export type LiveListener = (event: string, data: unknown) => void;

export interface DashboardLive {
  /** True while the channel is subscribed: events arrive, no polling is needed. */
  readonly live: boolean;
  /** Hear every event of the dashboard channel; returns the way to stop. */
  listen(fn: LiveListener): () => void;
  /** Told when `live` changes (true: subscribed again, catch up once; false: start polling). */
  onLiveChange(fn: (live: boolean) => void): () => void;
  close(): void;
}

const RESUBSCRIBE_MS = 15_000;

export const dashboardChannel = (workspaceId: number) => `private-dashboard.${workspaceId}`;

export function followDashboard(opts: DashboardLiveOptions): DashboardLive {
  const channel = dashboardChannel(opts.workspaceId);
  const listeners = new Set<LiveListener>();
  const watchers = new Set<(live: boolean) => void>();
  let live = false;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const setLive = (next: boolean) => {
    if (next === live) return;
    live = next;
    for (const fn of [...watchers]) fn(live);
  };
  const socket = opts.realtimeKey === null ? null : new RealtimeConnection({
    baseUrl: opts.baseUrl,
    key: opts.realtimeKey,
    authorize: (socketId, channelName) =>
      opts.client.broadcastingAuth.mutate({ socket_id: socketId, channel_name: channelName }),
    onEvent: (ch, event, data) => {
      if (ch !== channel) return;
      for (const fn of [...listeners]) fn(event, data);
    },
    onState: (state: RealtimeState) => {
      if (state !== "connected") setLive(false);
    },
    onSubscribed: (ch) => {
      if (ch === channel) setLive(true);
    },
    // Refused (the token that signed it ended, or a failed signature): poll, and ask again
    // later with the current token (a renewed session's); a 401 there signs the user out.
    onSubscribeError: (ch) => {
      if (ch !== channel) return;
      setLive(false);
      clearTimeout(retry);
      retry = setTimeout(() => {
        socket?.unsubscribe(channel);
        socket?.subscribe(channel);
      }, RESUBSCRIBE_MS);
    },
  });
  socket?.subscribe(channel);
  return {
    get live() {
      return live;
    },
    listen(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    onLiveChange(fn) {
      watchers.add(fn);
      return () => watchers.delete(fn);
    },
    close() {
      listeners.clear();
      watchers.clear();
      clearTimeout(retry);
      socket?.close();
      live = false;
    },
  };
}
