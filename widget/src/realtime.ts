/// <reference lib="dom" />
/**
 * The widget's socket: a few lines of Pusher protocol 7 (no client library,
 * to keep widget.js small). It follows one conversation channel, whose name
 * the heartbeat gives only to this visitor, answers the server's pings,
 * reports agent messages, state changes and typing, and reconnects with a
 * growing delay. When it cannot connect, the heartbeat still delivers.
 */
import type { ChatMessage, ConversationState, WidgetConfig } from "./types.ts";
import type { ShareUpdate } from "./screen_share.ts";

export interface RealtimeHandlers {
  message(m: ChatMessage, conversationId: string): void;
  state(s: ConversationState): void;
  typing(t: { role: string; typing: boolean; name?: string }): void;
  /** An agent asked to see the page, or the share changed (branding `screen_share`). */
  screen(u: ShareUpdate): void;
  /** The owner erased this conversation (docs/data-protection.md): forget it. */
  erased(conversationId: string): void;
}

type Wire = { event: string; channel?: string; data?: unknown };

export class Realtime {
  private ws: WebSocket | null = null;
  private channel: string | null = null;
  private joined = false;
  private delay = 1000;
  private lastTyping = 0;

  constructor(
    private readonly cfg: WidgetConfig["realtime"],
    private readonly on: RealtimeHandlers,
  ) {}

  /** Listens on `channel` (null: none); connects on first use. */
  follow(channel: string | null): void {
    if (channel === this.channel) return;
    if (this.channel && this.joined) this.write("pusher:unsubscribe", { channel: this.channel });
    this.channel = channel;
    this.joined = false;
    if (!channel) return;
    if (this.ws?.readyState === WebSocket.OPEN) this.join();
    else if (!this.ws) this.connect();
  }

  /** Tells the agent the visitor is typing, at most every 2 s. */
  typing(): void {
    const now = Date.now();
    if (!this.joined || now - this.lastTyping < 2000) return;
    this.lastTyping = now;
    this.ws?.send(JSON.stringify({
      event: "client-typing",
      channel: this.channel,
      data: { typing: true },
    }));
  }

  private connect(): void {
    const c = this.cfg;
    let ws: WebSocket;
    try {
      ws = new WebSocket(
        `${c.tls ? "wss" : "ws"}://${c.host}:${c.port}/app/${
          encodeURIComponent(c.key)
        }?protocol=7&client=parley-widget&version=1`,
      );
    } catch {
      return; // no sockets here: the heartbeat carries on alone
    }
    this.ws = ws;
    ws.onmessage = (e) => this.receive(e.data);
    ws.onclose = (e) => {
      this.ws = null;
      this.joined = false;
      // 4000–4099: the server refuses us for good (wrong key, old protocol).
      if (e.code >= 4000 && e.code < 4100) return;
      setTimeout(() => this.channel && !this.ws && this.connect(), this.delay);
      this.delay = Math.min(this.delay * 2, 30_000);
    };
  }

  private receive(raw: unknown): void {
    let f: Wire;
    try {
      f = JSON.parse(String(raw));
    } catch {
      return;
    }
    const data = typeof f.data === "string" ? safeParse(f.data) : f.data;
    if (f.event === "pusher:connection_established") {
      this.delay = 1000;
      return this.join();
    }
    if (f.event === "pusher:ping") return this.write("pusher:pong", {});
    if (f.channel !== this.channel || !data || typeof data !== "object") return;
    const d = data as Record<string, unknown>;
    if (f.event === "pusher_internal:subscription_succeeded") this.joined = true;
    else if (f.event === "message.created") {
      this.on.message(d.message as ChatMessage, String(d.conversation_id));
    } else if (f.event === "conversation.updated") this.on.state(d as unknown as ConversationState);
    else if (f.event === "client-typing") this.on.typing(d as { role: string; typing: boolean });
    else if (f.event === "screen_share.updated") this.on.screen(d as unknown as ShareUpdate);
    else if (f.event === "conversation.erased") this.on.erased(String(d.conversation_id));
  }

  private join(): void {
    if (this.channel) this.write("pusher:subscribe", { channel: this.channel });
  }

  private write(event: string, data: unknown): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ event, data }));
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
