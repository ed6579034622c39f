/**
 * A small client of the Pusher protocol 7 (the protocol the server's realtime
 * socket speaks at `/app/{key}`, docs/realtime.md), for the web inbox and the
 * CLI alike: it connects, answers pings, signs private channels through
 * `broadcasting/auth`, resubscribes after a reconnect and hands every channel
 * event to one callback. Nothing here knows Parley's event names.
 */

export type RealtimeState = "connecting" | "connected" | "unavailable" | "closed";

export interface ChannelAuth {
  auth: string;
  channel_data?: string;
}

export interface RealtimeOptions {
  /**
   * The socket server's address (`ws://…` or `wss://…`, the server's
   * REALTIME_URL), or an `http(s)://` origin whose host and port it shares.
   */
  baseUrl: string;
  /** The public app key (the server's REALTIME_KEY). */
  key: string;
  /** Signs a private or presence subscription (POST /api/agent/broadcasting/auth). */
  authorize: (socketId: string, channel: string) => Promise<ChannelAuth>;
  onEvent: (channel: string, event: string, data: unknown) => void;
  onState?: (state: RealtimeState) => void;
  /** Called once a channel is subscribed (after each reconnect too). */
  onSubscribed?: (channel: string) => void;
  /** Called when the server refuses a channel or its signature cannot be had. */
  onSubscribeError?: (channel: string, message: string) => void;
}

interface Frame {
  event?: string;
  channel?: string;
  data?: unknown;
}

const MAX_BACKOFF_MS = 15_000;
const PONG_WAIT_MS = 30_000;

export class RealtimeConnection {
  #opts: RealtimeOptions;
  #socket: WebSocket | null = null;
  #socketId: string | null = null;
  #channels = new Set<string>();
  #state: RealtimeState = "connecting";
  #attempt = 0;
  #retry: ReturnType<typeof setTimeout> | null = null;
  #idle: ReturnType<typeof setTimeout> | null = null;
  #activityMs = 120_000;
  #closed = false;
  /** The socket server's address, as the HTTP origin named it. */
  #discovered: string | null = null;

  constructor(opts: RealtimeOptions) {
    this.#opts = opts;
    this.#connect();
  }

  get state(): RealtimeState {
    return this.#state;
  }

  get socketId(): string | null {
    return this.#socketId;
  }

  subscribe(channel: string): void {
    if (this.#channels.has(channel)) return;
    this.#channels.add(channel);
    if (this.#socketId) void this.#sendSubscribe(channel);
  }

  unsubscribe(channel: string): void {
    if (!this.#channels.delete(channel)) return;
    if (this.#socketId) this.#send({ event: "pusher:unsubscribe", data: { channel } });
  }

  /** A client event (`client-…`) on a subscribed private channel, e.g. typing. */
  trigger(channel: string, event: string, data: unknown): void {
    if (this.#socketId && this.#channels.has(channel)) this.#send({ event, channel, data });
  }

  close(): void {
    this.#closed = true;
    this.#clearTimers();
    this.#socket?.close(1000);
    this.#socket = null;
    this.#setState("closed");
  }

  /**
   * The socket server's address. Given the HTTP origin, it is asked once:
   * `GET /app/{key}` there names the socket server (`socket_url`), which
   * listens on a port of its own (docs/realtime.md).
   */
  async #socketBase(): Promise<string> {
    const given = new URL(this.#opts.baseUrl);
    if (given.protocol === "ws:" || given.protocol === "wss:") return given.toString();
    if (this.#discovered) return this.#discovered;
    try {
      const r = await fetch(new URL(`/app/${encodeURIComponent(this.#opts.key)}`, given));
      const body = await r.json() as { socket_url?: unknown };
      if (typeof body.socket_url === "string") return this.#discovered = body.socket_url;
    } catch { /* an older server: sockets on the HTTP port */ }
    given.protocol = given.protocol === "https:" ? "wss:" : "ws:";
    return given.toString();
  }

  #url(socketBase: string): string {
    const base = new URL(socketBase);
    base.pathname = `/app/${encodeURIComponent(this.#opts.key)}`;
    base.search = "?protocol=7&client=parley-ts&version=1.0";
    return base.toString();
  }

  #connect(): void {
    if (this.#closed) return;
    this.#setState("connecting");
    this.#socketBase().then((base) => this.#open(base));
  }

  #open(socketBase: string): void {
    if (this.#closed) return;
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.#url(socketBase));
    } catch {
      this.#scheduleReconnect();
      return;
    }
    this.#socket = socket;
    socket.onmessage = (e) => {
      if (socket === this.#socket) this.#onFrame(String(e.data));
    };
    socket.onclose = (e) => {
      if (socket !== this.#socket) return;
      this.#socket = null;
      this.#socketId = null;
      this.#clearTimers();
      // 4000-4099: the server will not accept this connection again as is (e.g. an unknown key).
      if (e.code >= 4000 && e.code < 4100) {
        this.#closed = true;
        this.#setState("unavailable");
        return;
      }
      this.#scheduleReconnect(e.code >= 4200 && e.code < 4300);
    };
    socket.onerror = () => {
      // onclose follows and decides what to do.
    };
  }

  #onFrame(text: string): void {
    let frame: Frame;
    try {
      frame = JSON.parse(text);
    } catch {
      return;
    }
    this.#armIdle();
    const data = typeof frame.data === "string" ? parseData(frame.data) : frame.data;
    switch (frame.event) {
      case "pusher:connection_established": {
        const d = data as { socket_id?: string; activity_timeout?: number };
        this.#socketId = d.socket_id ?? null;
        if (typeof d.activity_timeout === "number" && d.activity_timeout > 0) {
          this.#activityMs = d.activity_timeout * 1000;
        }
        this.#attempt = 0;
        this.#setState("connected");
        this.#armIdle();
        for (const ch of this.#channels) void this.#sendSubscribe(ch);
        return;
      }
      case "pusher:ping":
        this.#send({ event: "pusher:pong", data: {} });
        return;
      case "pusher:pong":
        return;
      case "pusher:error":
        return; // a close frame follows when the error ends the connection
      case "pusher_internal:subscription_succeeded":
        if (frame.channel) this.#opts.onSubscribed?.(frame.channel);
        return;
      case "pusher:subscription_error":
        if (frame.channel) {
          this.#opts.onSubscribeError?.(frame.channel, describe(data));
        }
        return;
      default:
        if (frame.event && frame.channel && !frame.event.startsWith("pusher")) {
          this.#opts.onEvent(frame.channel, frame.event, data);
        }
    }
  }

  async #sendSubscribe(channel: string): Promise<void> {
    const socketId = this.#socketId;
    if (!socketId) return;
    const signed = channel.startsWith("private-") || channel.startsWith("presence-");
    let auth: ChannelAuth | null = null;
    if (signed) {
      try {
        auth = await this.#opts.authorize(socketId, channel);
      } catch (err) {
        this.#opts.onSubscribeError?.(channel, err instanceof Error ? err.message : String(err));
        return;
      }
    }
    // The socket may have been replaced while the signature was asked for.
    if (socketId !== this.#socketId || !this.#channels.has(channel)) return;
    this.#send({ event: "pusher:subscribe", data: { channel, ...(auth ?? {}) } });
  }

  #send(frame: Frame): void {
    if (this.#socket?.readyState === WebSocket.OPEN) this.#socket.send(JSON.stringify(frame));
  }

  /** After `activity_timeout` of silence the client pings; no answer soon after: reconnect. */
  #armIdle(): void {
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = setTimeout(() => {
      this.#send({ event: "pusher:ping", data: {} });
      this.#idle = setTimeout(() => this.#socket?.close(4201), PONG_WAIT_MS);
    }, this.#activityMs);
  }

  #scheduleReconnect(now = false): void {
    if (this.#closed) return;
    this.#setState("unavailable");
    const delay = now ? 0 : Math.min(MAX_BACKOFF_MS, 1000 * 2 ** this.#attempt);
    this.#attempt++;
    this.#retry = setTimeout(() => this.#connect(), delay);
  }

  #clearTimers(): void {
    if (this.#idle) clearTimeout(this.#idle);
    if (this.#retry) clearTimeout(this.#retry);
    this.#idle = this.#retry = null;
  }

  #setState(state: RealtimeState): void {
    if (state === this.#state) return;
    this.#state = state;
    this.#opts.onState?.(state);
  }
}

function parseData(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function describe(data: unknown): string {
  if (data && typeof data === "object") {
    const d = data as { error?: string; message?: string; status?: number };
    return d.error ?? d.message ?? `status ${d.status ?? "unknown"}`;
  }
  return String(data);
}

/** Parley's agent channels (docs/realtime.md). */
export const agentChannels = {
  workspace: (workspaceId: number) => `private-workspace.${workspaceId}`,
  user: (userId: number) => `private-user.${userId}`,
  conversation: (conversationId: string) => `private-conversation.${conversationId}`,
  /** Who is online: an agent subscribed here counts as online (the widget's handoff answer). */
  presence: (workspaceId: number) => `presence-workspace.${workspaceId}`,
  /** The visitor's shared page (screen sharing), read-only. */
  screen: (conversationId: string) => `private-screen.${conversationId}`,
};
