// deno-lint-ignore-file no-explicit-any
/**
 * The real pusher-js client (its web-worker build: global WebSocket and
 * fetch, both native in Deno) pointed at a test server, and small waits for
 * the events it raises.
 */
import PusherJs from "pusher-js/worker";

/** What the tests use of pusher-js (its worker build ships no type declarations). */
export interface Channel {
  name: string;
  bind(event: string, fn: (data: any) => void): unknown;
  unbind(event: string, fn?: (data: any) => void): unknown;
  trigger(event: string, data: unknown): boolean;
  bind_global(fn: (event: string, data: any) => void): unknown;
  members?: { count: number; each(fn: (m: { id: string; info: any }) => void): void; me: any };
}
export interface Pusher {
  subscribe(channel: string): Channel;
  unsubscribe(channel: string): void;
  disconnect(): void;
  connection: {
    state: string;
    socket_id: string;
    bind(event: string, fn: (data: any) => void): unknown;
    unbind(event: string, fn?: (data: any) => void): unknown;
  };
}
type Auth = { auth: string; channel_data?: string };
export const REALTIME_KEY = "parley";

export interface ClientOptions {
  /** Token sent to broadcasting/auth; none for a widget-like client. */
  token?: string;
  /** Which broadcasting/auth signs: the agent API's (default) or the dashboard's. */
  surface?: "agent" | "dashboard";
  key?: string;
  /** A custom authoriser (forged signatures). */
  authorizer?: (socketId: string, channel: string) => Auth;
}

export function pusherClient(
  server: { url: string; realtimePort: number },
  opts: ClientOptions = {},
): Pusher {
  const forged = opts.authorizer;
  return new PusherJs(opts.key ?? REALTIME_KEY, {
    cluster: "",
    wsHost: "127.0.0.1",
    wsPort: server.realtimePort,
    forceTLS: false,
    enabledTransports: ["ws"],
    disableStats: true,
    channelAuthorization: forged
      ? {
        endpoint: "",
        transport: "ajax",
        customHandler: (
          params: { socketId: string; channelName: string },
          callback: (err: Error | null, data: Auth) => void,
        ) => callback(null, forged(params.socketId, params.channelName)),
      }
      : {
        endpoint: `${server.url}/api/${opts.surface ?? "agent"}/broadcasting/auth`,
        transport: "ajax",
        headers: opts.token ? { Authorization: `Bearer ${opts.token}` } : {},
      },
  });
}

/** Resolves with the next `event` on `target` (a channel or the client's connection), or fails after `ms`. */
export function nextEvent<T = unknown>(
  target: {
    bind(e: string, fn: (d: T) => void): unknown;
    unbind(e: string, fn: (d: T) => void): unknown;
  },
  event: string,
  ms = 5000,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      target.unbind(event, on);
      reject(new Error(`no ${event} within ${ms} ms`));
    }, ms);
    const on = (d: T) => {
      clearTimeout(timer);
      target.unbind(event, on);
      resolve(d);
    };
    target.bind(event, on);
  });
}

/** Subscribes and waits for success or the subscription error, whichever comes. */
export function subscribe(client: Pusher, channel: string, ms = 5000) {
  const ch = client.subscribe(channel);
  return new Promise<{ ok: true; channel: Channel; data: unknown } | { ok: false; error: unknown }>(
    (resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer for ${channel}`)), ms);
      ch.bind("pusher:subscription_succeeded", (data: unknown) => {
        clearTimeout(timer);
        resolve({ ok: true, channel: ch, data });
      });
      ch.bind("pusher:subscription_error", (error: unknown) => {
        clearTimeout(timer);
        resolve({ ok: false, error });
      });
    },
  );
}

export async function connected(client: Pusher): Promise<string> {
  if (client.connection.state !== "connected") await nextEvent(client.connection, "connected");
  return client.connection.socket_id;
}
