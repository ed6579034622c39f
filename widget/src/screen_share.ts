/// <reference lib="dom" />
/**
 * Screen sharing in the widget (branding `screen_share`): an agent's request
 * arrives on the conversation channel; the visitor is asked in the chat and
 * nothing is loaded or recorded before they accept. Then the recorder
 * (widget-screen.js, rrweb, inputs masked) is loaded and a bar shows that the
 * page is shared, with a Stop button, until the visitor stops, the agent
 * stops, the conversation closes, or the page is left.
 */
import type { WidgetApi } from "./api.ts";
import { h } from "./dom.ts";

export interface ShareUpdate {
  conversation_id: string;
  screen_share: { id: number; state: string };
  resync?: boolean;
}

interface Recorder {
  snapshot(): void;
  stop(): void;
}
type StartRecorder = (o: {
  send(events: string[]): Promise<number>;
  onStop(reason: string): void;
}) => Recorder;

export interface ScreenShareHost {
  api: WidgetApi;
  /** The widget's origin, where widget-screen.js is served. */
  base: string;
  visitorId: string;
  conversationId(): string | null;
  /** Shows the consent card in the chat (opening it). */
  ask(card: HTMLElement): void;
  note(text: string): void;
  /** Where the "sharing" bar goes (the widget's root, beside the launcher). */
  bar: HTMLElement;
}

export class ScreenShare {
  private recorder: Recorder | null = null;
  private card: HTMLElement | null = null;
  private shareId = 0;
  /** Requests the visitor already answered (a heartbeat in flight may still report one). */
  private readonly answered = new Set<number>();
  /** Between the visitor's accept and the recorder's start. */
  private starting = false;

  constructor(private readonly host: ScreenShareHost) {
    host.bar.hidden = true;
    // Leaving the page ends the share (a beacon: it survives the unload).
    addEventListener("pagehide", () => {
      const id = this.host.conversationId();
      if (this.recorder && id) this.host.api.screenShareBeacon(this.host.visitorId, id, "leave");
    });
  }

  update(u: ShareUpdate): void {
    if (u.conversation_id !== this.host.conversationId()) return;
    const { id, state } = u.screen_share;
    if (state === "requested" && !this.recorder) return this.askConsent(id);
    if (state === "active" && u.resync) return this.recorder?.snapshot();
    // Accepted in another tab: this one's card has nothing left to answer.
    if (state === "active" && !this.recorder && !this.starting) this.dropCard(id);
    if (state === "ended" || state === "declined") this.finish("Screen sharing ended.");
  }

  private dropCard(id: number): void {
    this.answered.add(id);
    this.card?.remove();
    this.card = null;
  }

  private askConsent(id: number): void {
    if ((this.card && this.shareId === id) || this.answered.has(id)) return;
    this.card?.remove();
    this.shareId = id;
    const yes = h("button", { type: "button", class: "primary" }, "Share this page");
    const no = h("button", { type: "button", class: "ghost" }, "No thanks");
    const card = h(
      "div",
      { class: "card consent", role: "group", "aria-label": "Screen sharing request" },
      h("p", {}, "A teammate would like to see this page to help you."),
      h(
        "p",
        { class: "fine" },
        "They see this tab only, read-only; what you type in forms stays hidden. Stop at any time.",
      ),
      h("div", { class: "row" }, yes, no),
    );
    this.card = card;
    yes.addEventListener("click", () => void this.answer(true));
    no.addEventListener("click", () => void this.answer(false));
    this.host.ask(card);
  }

  private async answer(accept: boolean): Promise<void> {
    const id = this.host.conversationId();
    this.answered.add(this.shareId);
    this.card?.remove();
    this.card = null;
    if (!id) return;
    try {
      if (!accept) {
        await this.host.api.screenShare(this.host.visitorId, id, "decline");
        return this.host.note("You declined to share your screen.");
      }
      this.starting = true;
      const start = await this.loadRecorder();
      await this.host.api.screenShare(this.host.visitorId, id, "accept");
      this.recorder = start({
        send: (events) => this.host.api.screenEvents(this.host.visitorId, id, events),
        // The recorder stopped by itself (the server ended the share, or the page is too large).
        onStop: (reason) => {
          this.finish(reason);
          void this.host.api.screenShare(this.host.visitorId, id, "stop").catch(() => {});
        },
      });
      this.showBar();
      this.host.note("You're sharing this page. Inputs stay hidden.");
    } catch (err) {
      this.host.note(`Screen sharing could not start: ${(err as Error).message}`);
    } finally {
      this.starting = false;
    }
  }

  /** Stops recording and tells the server (the visitor's Stop). */
  private async stop(): Promise<void> {
    const id = this.host.conversationId();
    this.finish("You stopped sharing your screen.");
    if (id) await this.host.api.screenShare(this.host.visitorId, id, "stop").catch(() => {});
  }

  private finish(note: string): void {
    this.card?.remove();
    this.card = null;
    if (!this.recorder) return;
    this.recorder.stop();
    this.recorder = null;
    this.host.bar.hidden = true;
    this.host.note(note);
  }

  private showBar(): void {
    const stop = h("button", { type: "button", class: "stopshare" }, "Stop sharing");
    stop.addEventListener("click", () => void this.stop());
    this.host.bar.replaceChildren(
      h("span", { class: "dot", "aria-hidden": "true" }),
      "Sharing this page",
      stop,
    );
    this.host.bar.hidden = false;
  }

  /** widget-screen.js, added to the page once, on the first consent. */
  private loadRecorder(): Promise<StartRecorder> {
    const g = globalThis as unknown as { ParleyScreenRecorder?: StartRecorder };
    if (g.ParleyScreenRecorder) return Promise.resolve(g.ParleyScreenRecorder);
    return new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = `${this.host.base}/widget-screen.js`;
      s.async = true;
      s.onload = () =>
        g.ParleyScreenRecorder ? resolve(g.ParleyScreenRecorder) : reject(new Error("no recorder"));
      s.onerror = () => reject(new Error("the recorder did not load"));
      document.head.append(s);
    });
  }
}
