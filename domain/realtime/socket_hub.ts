/**
 * The Pusher-protocol socket server: holds this instance's WebSockets, their
 * channel subscriptions and presence, answers pings, and drops a socket that
 * stops answering or cannot keep up, without holding any other socket back.
 * Server events reach it from the event bus on every instance (see
 * realtime_feed.ts); client events and presence changes cross instances
 * through the Kv pub/sub (hub_link.ts).
 */
import type { Kv } from "../../kv/kv.ts";
import { channelKind, channelName, needsSignature } from "./channels.ts";
import { metricsEnabled, recordEventsDelivered } from "../observability/metrics.ts";
import {
  type ClientFrame,
  errorFrame,
  frame,
  parseClientFrame,
  PusherCode,
  subscriptionErrorFrame,
} from "./pusher_frames.ts";
import type { RealtimeCredentials } from "./pusher_signature.ts";
import { type MemberInfo, PresenceRegistry } from "./presence_registry.ts";
import { checkSubscription } from "./subscription_check.ts";
import { routeClientEvent } from "./client_events.ts";
import { HubLink, type LinkMessage } from "./hub_link.ts";
import { CHANNEL_REFUSED_MESSAGE, readGrant, TOKEN_ENDED_MESSAGE } from "./subscription_grants.ts";
import type { HeldSubscription, RecheckVerdict } from "./subscription_recheck.ts";

export interface HubOptions {
  creds: RealtimeCredentials;
  /** Seconds of silence before the server pings (and the value given to clients). */
  activityTimeout: number;
  /** Share client events and presence through this Kv (Redis) with other instances. */
  kv?: Kv | null;
  /** Bytes a socket may have queued before it counts as too slow and is dropped. */
  maxBufferedBytes?: number;
  /** Where broadcasting/auth records which token signed which subscription (every instance's Kv). */
  grants?: Kv;
  /**
   * Whether each subscription would still be authorised (subscription_recheck.ts):
   * one verdict per subscription, in order.
   */
  recheck?: (held: HeldSubscription[]) => Promise<RecheckVerdict[]>;
  /** How often this instance's subscriptions are checked again (besides on demand). */
  recheckMs?: number;
  /** Where dropped slow sockets are reported. */
  log?: { warn(msg: string, fields?: Record<string, unknown>): void };
}

/**
 * What the hub needs of a socket: the socket server (routers/doors/
 * socket_server.ts) reads and caps the frames; the hub speaks the protocol.
 */
export interface HubSocket {
  /** 1 while open (WebSocket.OPEN). */
  readonly readyState: number;
  /** Bytes queued to the client, not yet written. */
  readonly bufferedAmount: number;
  send(text: string): void;
  close(code: number, reason: string): void;
}

/** What the socket server tells the hub about one open socket. */
export interface SocketEvents {
  /** A whole message: its text, or null for a binary one. */
  message(text: string | null): void;
  closed(): void;
}

interface Conn {
  id: string;
  ws: HubSocket;
  /** Channel → presence user id (null on other channels). */
  channels: Map<string, string | null>;
  /** Channel → the token that authorised it (private and presence channels). */
  tokens: Map<string, number>;
  /** Channels whose grant is being read. */
  pending: Set<string>;
  lastSeen: number;
  pingSentAt: number;
  eventWindow: number;
  eventCount: number;
}

/** Client events a socket may send per second (Pusher's own figure). */
const CLIENT_EVENTS_PER_SECOND = 10;
const MAX_CHANNELS_PER_SOCKET = 100;
/** Pusher's limit on a client event's size. */
const MAX_FRAME_CHARS = 10_240;
const DEFAULT_MAX_BUFFERED = 1 << 20;
const DEFAULT_RECHECK_MS = 5_000;
const OPEN = 1;

export class SocketHub {
  private readonly conns = new Map<string, Conn>();
  private readonly subscribers = new Map<string, Set<Conn>>();
  readonly presence = new PresenceRegistry();
  private readonly link: HubLink | null;
  private readonly maxBuffered: number;
  private readonly pongTimeoutMs: number;
  private sweepTimer: ReturnType<typeof setInterval> | undefined;
  private recheckTimer: ReturnType<typeof setInterval> | undefined;
  /** The re-check under way, if any; `recheckAgain` asks for one more after it. */
  private rechecking: Promise<void> | null = null;
  private recheckAgain = false;
  private closing = false;

  constructor(private readonly opts: HubOptions) {
    this.maxBuffered = opts.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED;
    // Pusher recommends 30 s for the pong; never longer than the activity timeout itself.
    this.pongTimeoutMs = Math.min(30, opts.activityTimeout) * 1000;
    this.link = opts.kv ? new HubLink(opts.kv, this.presence, (m) => this.onLink(m)) : null;
  }

  get credentials(): RealtimeCredentials {
    return this.opts.creds;
  }

  async start(): Promise<void> {
    const every = Math.max(200, Math.min(5000, (this.opts.activityTimeout * 1000) / 4));
    const timer = setInterval(() => this.sweep(), every);
    Deno.unrefTimer(timer);
    this.sweepTimer = timer;
    if (this.opts.recheck) {
      const recheck = setInterval(
        () => void this.recheckNow(),
        this.opts.recheckMs ?? DEFAULT_RECHECK_MS,
      );
      Deno.unrefTimer(recheck);
      this.recheckTimer = recheck;
    }
    await this.link?.start();
  }

  /** Closes every socket with "reconnect now", so clients move to another instance. */
  async stop(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    clearInterval(this.sweepTimer);
    clearInterval(this.recheckTimer);
    for (const conn of [...this.conns.values()]) {
      this.drop(conn, PusherCode.reconnectNow, "Server restarting");
    }
    await this.link?.stop();
  }

  /**
   * A socket just opened on `/app/{key}`: the key and protocol are checked on
   * the open socket, as Pusher does. Null when it was refused (and closed).
   */
  open(socket: HubSocket, key: string, protocol: string | null): SocketEvents | null {
    if (this.closing) {
      socket.close(PusherCode.reconnectNow, "Server restarting");
      return null;
    }
    if (key !== this.opts.creds.key) {
      return refuse(socket, PusherCode.appNotFound, `App key ${key} not in use`);
    }
    if (protocol === null) {
      return refuse(socket, PusherCode.noProtocol, "No protocol version supplied");
    }
    if (protocol !== "7") {
      return refuse(socket, PusherCode.unsupportedProtocol, "Unsupported protocol version");
    }
    const conn: Conn = {
      id: newSocketId(),
      ws: socket,
      channels: new Map(),
      tokens: new Map(),
      pending: new Set(),
      lastSeen: Date.now(),
      pingSentAt: 0,
      eventWindow: 0,
      eventCount: 0,
    };
    this.conns.set(conn.id, conn);
    this.send(
      conn,
      frame("pusher:connection_established", {
        socket_id: conn.id,
        activity_timeout: this.opts.activityTimeout,
      }),
    );
    return { message: (text) => this.onFrame(conn, text), closed: () => this.forget(conn) };
  }

  /** Sends a server event to this instance's subscribers of `channel`. */
  broadcast(channel: string, event: string, data: unknown, exceptSocket?: string): void {
    const subs = this.subscribers.get(channel);
    if (!subs) return;
    const text = frame(event, data, channel);
    let sent = 0;
    for (const conn of subs) {
      if (conn.id !== exceptSocket) {
        this.send(conn, text);
        sent++;
      }
    }
    if (sent > 0 && metricsEnabled()) recordEventsDelivered(channelKind(channel), sent);
  }

  /**
   * Sends `event` to this instance's subscribers of `channel`, then unsubscribes
   * them: the channel's conversation no longer exists (it was erased), so
   * nothing more will come and a socket may not stay on it.
   */
  endChannel(channel: string, event: string, data: unknown): void {
    const subs = this.subscribers.get(channel);
    if (!subs) return;
    this.broadcast(channel, event, data);
    for (const conn of [...subs]) this.unsubscribe(conn, channel);
  }

  /** Whether any socket on this instance listens on `channel` (skip building unwanted payloads). */
  hasSubscribers(channel: string): boolean {
    return this.subscribers.has(channel);
  }

  /** Agents of a workspace connected to its presence channel, on any instance. */
  agentsOnline(workspaceId: number): number {
    return this.presence.members(channelName.presence(workspaceId)).size;
  }

  /** Open sockets on this instance. */
  get size(): number {
    return this.conns.size;
  }

  /** Open sockets, and subscriptions by channel kind (read when /metrics is scraped). */
  stats(): { open: number; subscriptions: Record<string, number> } {
    const subscriptions: Record<string, number> = {};
    for (const [channel, subs] of this.subscribers) {
      const kind = channelKind(channel);
      subscriptions[kind] = (subscriptions[kind] ?? 0) + subs.size;
    }
    return { open: this.conns.size, subscriptions };
  }

  private onFrame(conn: Conn, raw: string | null): void {
    conn.lastSeen = Date.now();
    conn.pingSentAt = 0;
    if (typeof raw === "string" && raw.length > MAX_FRAME_CHARS) {
      return this.send(conn, errorFrame(null, "Message too large (10 KB at most)"));
    }
    const f = parseClientFrame(raw);
    if (!f) return this.send(conn, errorFrame(null, "Malformed message"));
    switch (f.event) {
      case "pusher:ping":
        return this.send(conn, frame("pusher:pong", {}));
      case "pusher:pong":
        return;
      case "pusher:subscribe":
        return this.subscribe(conn, f.data);
      case "pusher:unsubscribe":
        return this.unsubscribe(conn, (f.data as { channel?: unknown } | null)?.channel);
      default:
        if (f.event.startsWith("client-")) return this.clientEvent(conn, f);
        // Unknown pusher: events are ignored, as the protocol allows.
    }
  }

  private subscribe(conn: Conn, data: unknown): void {
    const d = (data && typeof data === "object" ? data : {}) as Record<string, unknown>;
    const name = d.channel;
    if (typeof name !== "string" || name === "") {
      return this.send(conn, errorFrame(null, "pusher:subscribe needs a channel"));
    }
    const refuse = (status: number, why: string) =>
      this.send(conn, subscriptionErrorFrame(name, status, why));
    if (conn.channels.has(name)) return this.succeeded(conn, name);
    if (conn.pending.has(name)) return;
    if (conn.channels.size + conn.pending.size >= MAX_CHANNELS_PER_SOCKET) {
      return refuse(429, "Too many channels on one connection");
    }
    const check = checkSubscription(this.opts.creds, conn.id, name, d);
    if (!check.ok) return refuse(check.status, check.error);
    const grants = this.opts.grants;
    if (!grants || !needsSignature(name)) return this.join(conn, name, check.userId, check.info);
    // The signature is good; the subscription also keeps the token that asked for it.
    conn.pending.add(name);
    readGrant(grants, conn.id, name).then(
      (tokenId) => {
        if (!conn.pending.delete(name) || !this.conns.has(conn.id)) return;
        if (tokenId === null) return refuse(401, "No authorisation on record; authorise again");
        conn.tokens.set(name, tokenId);
        this.join(conn, name, check.userId, check.info);
      },
      () => {
        if (conn.pending.delete(name)) refuse(503, "Authorisation could not be read; retry");
      },
    );
  }

  private join(conn: Conn, name: string, userId: string | null, info: MemberInfo): void {
    conn.channels.set(name, userId);
    let subs = this.subscribers.get(name);
    if (!subs) this.subscribers.set(name, subs = new Set());
    if (userId !== null) {
      const first = this.presence.addLocal(name, userId, info);
      if (first) {
        this.broadcast(name, "pusher_internal:member_added", { user_id: userId, user_info: info });
      }
      this.link?.joined(name, userId, info);
    }
    subs.add(conn);
    this.succeeded(conn, name);
  }

  private succeeded(conn: Conn, name: string): void {
    if (!name.startsWith("presence-")) {
      return this.send(conn, frame("pusher_internal:subscription_succeeded", {}, name));
    }
    const members = this.presence.members(name);
    const hash: Record<string, MemberInfo> = Object.fromEntries(members);
    this.send(
      conn,
      frame("pusher_internal:subscription_succeeded", {
        presence: { ids: [...members.keys()], hash, count: members.size },
      }, name),
    );
  }

  private unsubscribe(conn: Conn, name: unknown): void {
    if (typeof name === "string") conn.pending.delete(name);
    if (typeof name !== "string" || !conn.channels.has(name)) return;
    const userId = conn.channels.get(name) ?? null;
    conn.channels.delete(name);
    conn.tokens.delete(name);
    const subs = this.subscribers.get(name);
    subs?.delete(conn);
    if (subs?.size === 0) this.subscribers.delete(name);
    if (userId !== null) {
      const { lastLocal, gone } = this.presence.removeLocal(name, userId);
      if (gone) this.broadcast(name, "pusher_internal:member_removed", { user_id: userId });
      if (lastLocal) this.link?.left(name, userId);
    }
  }

  /**
   * `client-…` events: only on private and presence channels the socket
   * joined (Pusher's rule), plus `client-typing` on a widget channel. Typing
   * is bridged between a conversation's agent and widget channels.
   */
  private clientEvent(conn: Conn, f: ClientFrame): void {
    const name = f.channel;
    if (!name || !conn.channels.has(name)) {
      return this.send(
        conn,
        errorFrame(null, "Client event on a channel the connection has not joined"),
      );
    }
    const routes = routeClientEvent(this.opts.creds, name, f.event, f.data);
    if (typeof routes === "string") return this.send(conn, errorFrame(null, routes));
    const second = Math.floor(Date.now() / 1000);
    if (conn.eventWindow !== second) {
      conn.eventWindow = second;
      conn.eventCount = 0;
    }
    if (++conn.eventCount > CLIENT_EVENTS_PER_SECOND) {
      return this.send(
        conn,
        errorFrame(PusherCode.clientEventRateLimited, "Client event rejected due to rate limit"),
      );
    }
    const userId = conn.channels.get(name) ?? null;
    for (const r of routes) {
      this.relay(r.channel, f.event, r.data, conn.id, r.withUser ? userId : null);
    }
  }

  /** A client event to the channel's other sockets here and on every other instance. */
  private relay(
    channel: string,
    event: string,
    data: unknown,
    from: string,
    userId: string | null,
  ) {
    const payload = JSON.stringify(data ?? {});
    const text = userId === null
      ? JSON.stringify({ event, channel, data: payload })
      : JSON.stringify({ event, channel, data: payload, user_id: userId });
    this.sendRaw(channel, text, from);
    this.link?.clientEvent(channel, text, from);
  }

  private sendRaw(channel: string, text: string, exceptSocket?: string): void {
    for (const conn of this.subscribers.get(channel) ?? []) {
      if (conn.id !== exceptSocket) this.send(conn, text);
    }
  }

  /** What another instance said: a client event, or presence that changed there. */
  private onLink(m: LinkMessage): void {
    if (m.k === "client") return this.sendRaw(m.channel, m.text, m.from);
    for (const [channel, userId, info] of m.added) {
      this.broadcast(channel, "pusher_internal:member_added", { user_id: userId, user_info: info });
    }
    for (const [channel, userId] of m.removed) {
      this.broadcast(channel, "pusher_internal:member_removed", { user_id: userId });
    }
  }

  /**
   * Queues a frame; a socket whose queue is over the bound is too slow (or
   * gone) and is dropped rather than buffered without end.
   */
  private send(conn: Conn, text: string): void {
    const ws = conn.ws;
    if (ws.readyState !== OPEN) return;
    if (ws.bufferedAmount > this.maxBuffered) {
      this.opts.log?.warn("realtime socket dropped: send buffer full", {
        queued_bytes: ws.bufferedAmount,
      });
      return this.drop(conn, PusherCode.overCapacity, "Too slow: send buffer full");
    }
    try {
      ws.send(text);
    } catch {
      this.forget(conn);
    }
  }

  /**
   * Ends the subscriptions these tokens authorised, on this instance: the
   * channel gets `pusher:subscription_error` (401) and stops receiving.
   */
  endTokens(ended: ReadonlySet<number>): void {
    if (ended.size === 0) return;
    for (const conn of [...this.conns.values()]) {
      for (const [channel, tokenId] of [...conn.tokens]) {
        if (ended.has(tokenId)) this.endSubscription(conn, channel, "token");
      }
    }
  }

  /**
   * Checks every subscription this instance holds against the rules that
   * authorised it, now: on the timer, and when a domain event says who may
   * join what has changed (a member's role, a bot's screen sharing). A call
   * during a re-check runs one more after it, so a change committed while the
   * first was reading is never missed. Resolves when done.
   */
  recheckNow(): Promise<void> {
    if (!this.opts.recheck || this.closing) return Promise.resolve();
    if (this.rechecking) {
      this.recheckAgain = true;
      return this.rechecking;
    }
    const run = async () => {
      do {
        this.recheckAgain = false;
        await this.recheckOnce();
      } while (this.recheckAgain && !this.closing);
    };
    const p = run().finally(() => this.rechecking = null);
    this.rechecking = p;
    return p;
  }

  private async recheckOnce(): Promise<void> {
    const held = new Map<string, HeldSubscription>();
    for (const conn of this.conns.values()) {
      for (const [channel, tokenId] of conn.tokens) {
        held.set(heldKey(tokenId, channel), { tokenId, channel });
      }
    }
    if (held.size === 0) return;
    try {
      const list = [...held.values()];
      const verdicts = await this.opts.recheck!(list);
      const ended = new Map<string, RecheckVerdict>();
      list.forEach((h, i) => {
        const v = verdicts[i];
        if (v && v !== "ok") ended.set(heldKey(h.tokenId, h.channel), v);
      });
      if (ended.size === 0) return;
      // Only what was checked: a channel joined (or re-joined with another token) meanwhile stays.
      for (const conn of [...this.conns.values()]) {
        for (const [channel, tokenId] of [...conn.tokens]) {
          const why = ended.get(heldKey(tokenId, channel));
          if (why === "token" || why === "channel") this.endSubscription(conn, channel, why);
        }
      }
    } catch (err) {
      this.opts.log?.warn("realtime subscription re-check failed", { err: String(err) });
    }
  }

  /** Tells the socket why (401 the token ended, 403 the channel is no longer allowed) and leaves. */
  private endSubscription(conn: Conn, channel: string, why: "token" | "channel"): void {
    this.send(
      conn,
      why === "token"
        ? subscriptionErrorFrame(channel, 401, TOKEN_ENDED_MESSAGE)
        : subscriptionErrorFrame(channel, 403, CHANNEL_REFUSED_MESSAGE),
    );
    this.unsubscribe(conn, channel);
  }

  /** One timer for all sockets: ping the silent ones, drop those that never answered. */
  private sweep(): void {
    const now = Date.now();
    const idleMs = this.opts.activityTimeout * 1000;
    const ping = frame("pusher:ping", {});
    for (const conn of this.conns.values()) {
      if (conn.pingSentAt) {
        if (now - conn.pingSentAt > this.pongTimeoutMs) {
          this.drop(conn, PusherCode.pongNotReceived, "Pong reply not received");
        }
      } else if (now - conn.lastSeen >= idleMs) {
        conn.pingSentAt = now;
        this.send(conn, ping);
      }
    }
    this.link?.expire(now);
  }

  private drop(conn: Conn, code: number, reason: string): void {
    this.forget(conn);
    try {
      conn.ws.close(code, reason);
    } catch { /* already closing */ }
  }

  /** Removes a socket's subscriptions and presence; safe to call more than once. */
  private forget(conn: Conn): void {
    if (!this.conns.delete(conn.id)) return;
    for (const name of [...conn.channels.keys()]) this.unsubscribe(conn, name);
  }
}

function refuse(socket: HubSocket, code: number, message: string): null {
  socket.send(errorFrame(code, message));
  socket.close(code, message);
  return null;
}

const heldKey = (tokenId: number, channel: string) => `${tokenId} ${channel}`;

/** `123.456`-style ids, as Pusher issues them. */
function newSocketId(): string {
  const [a, b] = crypto.getRandomValues(new Uint32Array(2));
  return `${a}.${b}`;
}
