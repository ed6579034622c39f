/// <reference lib="dom" />
/**
 * The widget controller: opens and closes the chat, restores the stored
 * conversation, sends messages and streams the replies, asks for a human,
 * starts new chats, keeps presence with the heartbeat (which also delivers
 * agent replies), and asks for a rating once a conversation is closed.
 */
import { ApiError, newClientId, WidgetApi } from "./api.ts";
import { Chime } from "./chime.ts";
import { h } from "./dom.ts";
import { MessageLog } from "./message_log.ts";
import { Presence } from "./presence.ts";
import { Realtime } from "./realtime.ts";
import { emailCard } from "./email_card.ts";
import { prechatGate, storedDetails } from "./prechat_form.ts";
import { scheduleProactive } from "./proactive.ts";
import { ScreenShare } from "./screen_share.ts";
import { ratingCard } from "./rating_card.ts";
import { productCards } from "./product_cards.ts";
import { VisitorStore } from "./storage.ts";
import { VISITOR_NOTES } from "../../domain/conversations/state_words.ts";
import type { ChatMessage, ConversationState, HeartbeatReply, WidgetConfig } from "./types.ts";
import { mountView, type View } from "./view.ts";

export class Widget {
  private readonly view: View;
  private readonly log: MessageLog;
  private readonly store: VisitorStore;
  private readonly visitorId: string;
  private conversationId: string | null;
  private state: ConversationState | null = null;
  private loaded = false;
  /** The first open's restore of the stored conversation (cards wait for it). */
  private restoring: Promise<void> = Promise.resolve();
  private streaming: AbortController | null = null;
  /** The last message that failed to send, with its idempotency key. */
  private unsent: { text: string; clientId: string } | null = null;
  private readonly presence: Presence;
  private ratingShown = false;
  private unread = 0;
  /** Notes the server attached to human-owned turns, each shown once per conversation. */
  private readonly notes = new Set<string>();
  /** Agent messages already handed over (socket and heartbeat may both bring one). */
  private readonly delivered = new Set<number>();
  private readonly realtime: Realtime | null;
  private typingNote: { el: HTMLElement; timer: ReturnType<typeof setTimeout> } | null = null;
  /** The conversation whose request for a human was already answered in the log. */
  private asked: string | null = null;
  private readonly chime: Chime;
  /** Present when the bot allows screen sharing (and the socket can bring requests). */
  private readonly screen: ScreenShare | null = null;

  constructor(
    private readonly config: WidgetConfig,
    private readonly api: WidgetApi,
    private identity: string | null,
  ) {
    this.store = new VisitorStore(config.public_key);
    this.visitorId = this.store.visitorId();
    this.conversationId = this.store.get("conversation");
    this.view = mountView(config);
    const b = config.branding;
    this.chime = new Chime(b.sound === true);
    this.log = new MessageLog(this.view.log, {
      assistant: b.avatar_url,
      agent: b.agent_avatars[0] ?? null,
    });
    this.realtime = config.realtime.transport === "pusher" && typeof WebSocket === "function"
      ? new Realtime(config.realtime, {
        message: (m, id) => id === this.conversationId && this.deliver([m]),
        state: (st) => st.conversation_id === this.conversationId && this.followState(st),
        typing: (t) => t.role === "agent" && this.showTyping(t.typing, t.name),
        screen: (u) => this.screen?.update(u),
        erased: (id) => id === this.conversationId && void this.forgetErased(),
      })
      : null;
    if (b.screen_share && this.realtime) {
      this.screen = new ScreenShare({
        api,
        base: api.base,
        visitorId: this.visitorId,
        conversationId: () => this.conversationId,
        ask: (card) => {
          this.open(false);
          void this.restoring.then(() => this.log.card(card));
        },
        note: (text) => void this.log.note(text),
        bar: this.view.shareBar,
      });
    }
    this.bind();
    // A proactive invitation is for visitors who have not started talking yet.
    scheduleProactive(
      config.proactive,
      this.store,
      () => !this.conversationId && this.teaser(config.proactive.message),
    );
    this.presence = new Presence(
      api,
      config.realtime.heartbeat_seconds,
      () => ({
        visitorId: this.visitorId,
        conversationId: this.conversationId,
        chatOpen: !this.view.panel.hidden,
      }),
      (reply) => this.onHeartbeat(reply),
      b.behavior_tracking !== false,
    );
    if (this.store.get("open", "session")) this.open(false);
    else void this.presence.beat();
  }

  open(focus = true): void {
    const v = this.view;
    v.panel.hidden = false;
    v.proactive.hidden = true;
    v.launcher.setAttribute("aria-expanded", "true");
    this.setUnread(0);
    this.store.set("open", "1", "session");
    if (!this.loaded) {
      this.loaded = true;
      this.restoring = this.restore();
    }
    if (focus) (v.input.disabled ? v.panel.querySelector("input") ?? v.close : v.input).focus();
    void this.presence.beat();
  }

  /** Sets the signed identity token sent with the next messages (null forgets it). */
  identify(token: string | null): void {
    this.identity = token && token.length <= 4000 ? token : null;
  }

  close(): void {
    this.view.panel.hidden = true;
    this.view.launcher.setAttribute("aria-expanded", "false");
    this.store.set("open", null, "session");
    this.view.launcher.focus();
  }

  private bind(): void {
    const v = this.view;
    v.launcher.addEventListener("click", () => (v.panel.hidden ? this.open() : this.close()));
    v.close.addEventListener("click", () => this.close());
    v.panel.addEventListener("keydown", (e) => {
      if (e.key === "Escape") {
        e.stopPropagation();
        this.close();
      }
    });
    v.composer.addEventListener("submit", (e) => {
      e.preventDefault();
      this.sendFromInput();
    });
    v.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.sendFromInput();
      }
    });
    v.input.addEventListener("input", () => {
      this.realtime?.typing();
      v.input.style.height = "auto";
      v.input.style.height = `${Math.min(v.input.scrollHeight, 120)}px`;
    });
    v.human.addEventListener("click", () => void this.requestHuman());
    v.newChat.addEventListener("click", () => void this.newChat());
    v.proactiveOpen.addEventListener("click", () => this.open());
    v.proactiveClose.addEventListener("click", () => {
      v.proactive.hidden = true;
      v.launcher.focus();
    });
    this.updateButtons();
  }

  /** Shows the teaser bubble beside the launcher; false when the chat is open. */
  private teaser(text: string): boolean {
    if (!this.view.panel.hidden) return false;
    this.view.proactiveOpen.textContent = text;
    this.view.proactive.hidden = false;
    return true;
  }

  /** Draws the welcome, then the stored conversation if there is one. */
  private async restore(): Promise<void> {
    this.log.clear();
    this.notes.clear();
    this.ratingShown = false;
    this.log.add({ id: 0, role: "assistant", content: this.config.welcome_message });
    let messages: ChatMessage[] = [];
    if (this.conversationId) {
      try {
        const snap = await this.api.snapshot(this.visitorId, this.conversationId);
        messages = snap.messages;
        for (const m of messages) this.log.add(m);
        this.applyState(snap, false);
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) this.setConversation(null);
        else this.log.note("We couldn't load your earlier messages.");
      }
    }
    const started = messages.some((m) => m.role === "visitor");
    this.renderChips(!started);
    const prechat = this.config.prechat;
    if (!started && prechat.enabled && !storedDetails(this.store)) {
      this.log.card(prechatGate(prechat.fields, this.store, this.view));
    }
  }

  private renderChips(show: boolean): void {
    const chips = show ? this.config.quick_replies.filter((q) => q.trim()) : [];
    this.view.chips.replaceChildren(
      ...chips.map((q) => {
        const chip = h("button", { type: "button", class: "chip" }, q);
        chip.addEventListener("click", () => void this.send(q));
        return chip;
      }),
    );
    this.view.chips.hidden = chips.length === 0;
  }

  private sendFromInput(): void {
    const text = this.view.input.value.trim();
    if (!text || this.streaming || this.view.input.disabled) return;
    this.view.input.value = "";
    this.view.input.style.height = "auto";
    void this.send(text);
  }

  /** Sends one visitor message and streams the reply into a live bubble. */
  private async send(text: string): Promise<void> {
    if (this.streaming || this.view.input.disabled) return;
    // A message that failed keeps its key: sending the same text again is its retry.
    const clientId = this.unsent?.text === text ? this.unsent.clientId : newClientId();
    this.unsent = null;
    this.renderChips(false);
    const mine = this.log.add({ id: -1, role: "visitor", content: text });
    const live = this.log.live();
    const ac = new AbortController();
    this.streaming = ac;
    this.view.send.disabled = true;
    try {
      await this.api.stream({
        visitor_id: this.visitorId,
        message: text,
        client_id: clientId,
        ...(this.conversationId ? { conversation_id: this.conversationId } : {}),
        ...(this.identity ? { identity: this.identity } : {}),
        meta: {
          page_url: location.href,
          page_title: document.title,
          visitor: storedDetails(this.store),
        },
      }, {
        onMeta: (m) => {
          this.setConversation(m.conversation_id);
          this.log.remember(m.visitor_message_id);
          const status = m.status as ConversationState["status"];
          const handoff = this.state?.conversation_id === m.conversation_id
            ? this.state.handoff_state
            : "bot_active";
          this.applyState(
            { conversation_id: m.conversation_id, status, handoff_state: handoff },
            false,
          );
        },
        onDelta: (d) => live.append(d),
        onDone: (d) => {
          if (d.source === "human") {
            live.remove();
            this.log.remember(d.message_id);
            if (d.note && !this.notes.has(d.note)) {
              this.notes.add(d.note);
              this.log.note(d.note);
            }
          } else {
            live.finish(d.message_id, d.sources ?? []);
            this.notify();
          }
        },
        onError: (e) => live.fail(e.message || "The reply could not be completed."),
        onRecommendations: (products) => {
          const id = this.conversationId;
          if (!products.length || !id) return;
          this.log.card(productCards(products, (p) => {
            this.api.productClick(this.visitorId, id, p.id).catch(() => {});
          }));
        },
      }, ac.signal);
    } catch (err) {
      if (ac.signal.aborted) return;
      live.remove();
      mine?.remove();
      this.unsent = { text, clientId };
      if (!this.view.input.value) this.view.input.value = text;
      this.log.note(err instanceof ApiError ? err.message : "Connection lost. Please try again.");
    } finally {
      if (this.streaming === ac) {
        this.streaming = null;
        this.view.send.disabled = false;
      }
    }
  }

  private async requestHuman(): Promise<void> {
    const id = this.conversationId;
    if (!id) return;
    // The pre-chat form's address, when it asked for one: sent with the request, never asked again.
    const known = storedDetails(this.store)?.email?.trim() || undefined;
    try {
      const state = await this.api.handoff(this.visitorId, id, known);
      this.applyState(state, true);
      // Said once per conversation, from this answer only: the socket may bring the new
      // state first, and only this answer says whether anyone is there.
      if (state.handoff_state !== "handoff_pending" || this.asked === id) return;
      this.asked = id;
      if (state.agents_online) {
        this.log.note(VISITOR_NOTES.waiting);
        return;
      }
      // Say so plainly instead of promising a teammate; the AI keeps answering.
      if (known) {
        this.log.note(VISITOR_NOTES.waitingReplyTo(known));
        return;
      }
      this.log.note(VISITOR_NOTES.waitingNobodyOnline);
      this.log.card(emailCard(async (email) => {
        await this.api.handoff(this.visitorId, id, email);
        return `Thanks! We'll reply to ${email}.`;
      }));
    } catch (err) {
      this.log.note(err instanceof ApiError ? err.message : "Please try again.");
    }
  }

  /**
   * The owner erased this visitor's data: the widget's session ends too. The
   * conversation, the details the pre-chat form kept and the visitor id are
   * forgotten (a new id from the next page load), and the chat starts empty.
   */
  private async forgetErased(): Promise<void> {
    this.streaming?.abort();
    this.streaming = null;
    this.setConversation(null, false);
    this.state = null;
    this.store.set("details", null);
    this.store.set("visitor", null);
    await this.restore();
  }

  /** Closes the conversation on the server and starts over with a clean slate. */
  private async newChat(): Promise<void> {
    this.streaming?.abort();
    this.streaming = null;
    this.view.send.disabled = false;
    const id = this.conversationId;
    this.setConversation(null);
    this.state = null;
    this.updateButtons();
    if (id) await this.api.reset(this.visitorId, id).catch(() => undefined);
    await this.restore();
    this.view.input.focus();
  }

  /** `beat`: ask the heartbeat now for the new conversation's channel. */
  private setConversation(id: string | null, beat = true): void {
    if (id !== this.conversationId) {
      this.realtime?.follow(null);
      if (id && beat && this.realtime) queueMicrotask(() => void this.presence.beat());
    }
    this.conversationId = id;
    this.store.set("conversation", id);
    this.updateButtons();
  }

  /** Applies a server state; `announce` adds a note when the handoff state changed. */
  private applyState(s: ConversationState, announce: boolean): void {
    const before = this.state;
    this.state = {
      conversation_id: s.conversation_id,
      status: s.status,
      handoff_state: s.handoff_state,
    };
    if (
      announce && before?.handoff_state !== s.handoff_state && s.handoff_state === "human_connected"
    ) {
      this.log.note(VISITOR_NOTES.human);
    }
    if (s.status === "closed" && this.config.features.rating && !this.ratingShown) {
      this.ratingShown = true;
      if (announce) this.log.note(VISITOR_NOTES.resolved);
      if (!this.store.get(`rated:${s.conversation_id}`)) {
        const convId = s.conversation_id;
        this.log.card(ratingCard(async (rating, comment) => {
          await this.api.rate(this.visitorId, convId, rating, comment);
          this.store.set(`rated:${convId}`, String(rating));
        }));
      }
    }
    if (s.status !== "closed") this.ratingShown = false;
    this.updateButtons();
  }

  private updateButtons(): void {
    const v = this.view;
    v.human.hidden = !this.config.features.human_handoff || !this.conversationId ||
      this.state?.handoff_state === "human_connected" || this.state?.status === "closed";
    v.newChat.hidden = !this.conversationId;
  }

  /** A heartbeat's answer: adopt a conversation an agent started, follow its state, deliver. */
  private onHeartbeat(reply: HeartbeatReply): void {
    const c = reply.conversation;
    if (c && (!this.conversationId || c.conversation_id === this.conversationId)) {
      if (!this.conversationId) this.setConversation(c.conversation_id, false);
      this.followState(c);
      this.realtime?.follow(c.realtime_channel);
      // A request the socket did not bring (it was reconnecting, or the page was reloaded).
      if (c.screen_share?.state === "requested") {
        this.screen?.update({ conversation_id: c.conversation_id, screen_share: c.screen_share });
      }
    }
    this.deliver(reply.messages ?? []);
  }

  private followState(s: ConversationState): void {
    if (this.loaded) this.applyState(s, true);
    else this.state = s;
  }

  /** "… is typing" under the last message, gone after a few quiet seconds or with the reply. */
  private showTyping(on: boolean, name?: string): void {
    if (this.typingNote) {
      clearTimeout(this.typingNote.timer);
      this.typingNote.el.remove();
      this.typingNote = null;
    }
    if (!on || !this.loaded) return;
    const el = this.log.note(`${name || "A teammate"} is typing…`);
    this.typingNote = { el, timer: setTimeout(() => this.showTyping(false), 5000) };
  }

  private deliver(incoming: ChatMessage[]): void {
    const messages = incoming.filter((m) => !this.delivered.has(m.id));
    if (!messages.length) return;
    for (const m of messages) this.delivered.add(m.id);
    this.showTyping(false);
    if (this.loaded) { for (const m of messages) this.log.add(m); }
    this.notify();
    if (this.view.panel.hidden) {
      const last = messages[messages.length - 1]!;
      this.teaser(last.content);
      this.setUnread(this.unread + messages.length);
    }
  }

  /** A new agent or AI message the visitor may not be looking at: the chime (`sound`). */
  private notify(): void {
    if (this.view.panel.hidden || document.hidden) this.chime.play();
  }

  /** The count on the launcher of agent messages that arrived while the chat was closed. */
  private setUnread(n: number): void {
    this.unread = n;
    const badge = this.view.badge;
    badge.hidden = n === 0;
    badge.textContent = n > 9 ? "9+" : String(n);
    badge.setAttribute("aria-label", `${n} new message${n === 1 ? "" : "s"}`);
  }
}
