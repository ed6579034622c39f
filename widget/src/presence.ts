/// <reference lib="dom" />
/**
 * The heartbeat loop: tells the server the visitor is here, on which page,
 * and whether the chat is open; the answer carries the conversation's state
 * and agent messages sent meanwhile. The next beat follows the server's
 * `poll_seconds`, so the server sets the pace (faster while a human talks).
 */
import type { WidgetApi } from "./api.ts";
import type { HeartbeatReply } from "./types.ts";

export interface PresenceState {
  visitorId: string;
  conversationId: string | null;
  chatOpen: boolean;
}

export class Presence {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly api: WidgetApi,
    private readonly fallbackSeconds: number,
    private readonly read: () => PresenceState,
    private readonly onReply: (reply: HeartbeatReply) => void,
    /** The bot's `behavior_tracking`: off, no referrer leaves the page (the current page only). */
    private readonly track = true,
  ) {
    document.addEventListener("visibilitychange", () => !document.hidden && this.beat());
  }

  /** Beats now and schedules the next one; failures wait for the next beat. */
  async beat(): Promise<void> {
    clearTimeout(this.timer);
    const s = this.read();
    let next = this.fallbackSeconds || 15;
    try {
      const reply = await this.api.heartbeat({
        visitor_id: s.visitorId,
        ...(s.conversationId ? { conversation_id: s.conversationId } : {}),
        page_url: location.href.slice(0, 2048),
        page_title: document.title.slice(0, 300),
        ...(this.track ? { referrer: document.referrer.slice(0, 2048) } : {}),
        chat_open: s.chatOpen,
        locale: navigator.language,
        timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      });
      next = reply.poll_seconds || next;
      this.onReply(reply);
    } catch { /* presence is best effort */ }
    this.timer = setTimeout(() => void this.beat(), next * 1000);
  }
}
