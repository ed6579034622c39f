/// <reference lib="dom" />
/**
 * Screen sharing in the inbox (branding `screen_share`): "View screen" asks
 * the visitor (the widget asks them for consent) and opens a read-only view
 * of their page, the /inbox/screen frame, which replays what arrives on
 * `private-screen.{uuid}`. The panel says where the share stands (waiting,
 * live, declined, ended and by whom); Stop ends it for both sides.
 */
import type { AgentClient } from "../../clients/agent_client.ts";
import { describeFailure } from "../../clients/agent_client.ts";
import { fill, h } from "./dom.ts";

type Share = { id: number; state: string; ended_by?: string | null };

const ENDED_BY: Record<string, string> = {
  visitor: "The visitor stopped sharing.",
  agent: "Screen sharing stopped.",
  closed: "The conversation was closed: screen sharing ended.",
  left: "The visitor left the page: screen sharing ended.",
  turned_off: "Screen sharing was turned off for this bot: the share ended.",
};

export interface ScreenViewHost {
  client: AgentClient;
  /** Join (or leave, with null) the conversation's screen channel. */
  follow(conversationId: string | null): void;
  say(text: string): void;
}

export class ScreenView {
  readonly root: HTMLElement;
  #host: ScreenViewHost;
  #conversation: string | null = null;
  #frame: HTMLIFrameElement | null = null;
  #frameReady = false;
  #pending: string[][] = [];
  #status: HTMLElement;
  #stop: HTMLButtonElement;
  /** Whether joining the channel should ask the visitor (the agent clicked, or a reconnect). */
  #asking = false;
  /** The screen channel is joined (asking again needs no new subscription). */
  #joined = false;

  constructor(host: ScreenViewHost) {
    this.#host = host;
    this.#status = h("p", { class: "screen-status", role: "status", "aria-live": "polite" });
    this.#stop = h("button", {
      type: "button",
      class: "act",
      onClick: () => void this.#stopShare(),
    }, "Stop");
    const close = h("button", {
      type: "button",
      class: "act",
      onClick: () => this.close(),
    }, "Hide");
    this.root = h(
      "section",
      { class: "screen-panel", "aria-label": "Visitor's screen", hidden: true },
      h(
        "header",
        { class: "screen-bar" },
        h("strong", null, "Visitor's screen"),
        this.#status,
        this.#stop,
        close,
      ),
    );
    addEventListener("message", (e: MessageEvent) => {
      if (e.origin !== location.origin || e.source !== this.#frame?.contentWindow) return;
      if ((e.data as { kind?: string })?.kind !== "screen-ready") return;
      this.#frameReady = true;
      for (const batch of this.#pending) this.#post({ kind: "events", events: batch });
      this.#pending = [];
    });
  }

  get conversation(): string | null {
    return this.#conversation;
  }

  /** The agent asks to see the visitor's page. */
  open(conversationId: string): void {
    if (this.#conversation !== conversationId) this.close();
    this.#conversation = conversationId;
    this.#asking = true;
    this.root.hidden = false;
    this.#show("Asking the visitor…", true);
    if (!this.#frame) {
      this.#frameReady = false;
      this.#frame = h("iframe", {
        class: "screen-frame",
        src: "/inbox/screen",
        title: "The visitor's page (read-only)",
        referrerpolicy: "no-referrer",
      });
      this.root.append(this.#frame);
    }
    this.#host.follow(conversationId);
    if (this.#joined) void this.#ask();
  }

  /** Hides the view and leaves the channel; the share itself goes on until someone stops it. */
  close(): void {
    this.#host.follow(null);
    this.#conversation = null;
    this.#asking = false;
    this.#joined = false;
    this.#frame?.remove();
    this.#frame = null;
    this.#frameReady = false;
    this.#pending = [];
    this.root.hidden = true;
  }

  /** The channel is joined: ask now, so the widget's full view comes to a listener. */
  async subscribed(channel: string): Promise<void> {
    const id = this.#conversation;
    if (!id || channel !== `private-screen.${id}`) return;
    this.#joined = true;
    if (this.#asking) await this.#ask();
  }

  async #ask(): Promise<void> {
    const id = this.#conversation;
    if (!id) return;
    try {
      const r = await this.#host.client.agent.requestShare.mutate({ conversation: id });
      this.#update(r.screen_share);
    } catch (err) {
      this.#show(describeFailure(err).message, false);
    }
  }

  refused(channel: string, message: string): void {
    if (channel === `private-screen.${this.#conversation}`) this.#show(message, false);
  }

  /** A realtime event on the screen or conversation channel. */
  event(channel: string, event: string, data: unknown): void {
    const id = this.#conversation;
    if (!id) return;
    if (event === "screen_share.events" && channel === `private-screen.${id}`) {
      const events = (data as { events?: string[] }).events;
      if (!Array.isArray(events)) return;
      if (this.#frameReady) this.#post({ kind: "events", events });
      else this.#pending.push(events);
    } else if (
      event === "screen_share.updated" && channel === `private-screen.${id}` &&
      (data as { conversation_id?: string }).conversation_id === id
    ) {
      this.#update((data as { screen_share: Share }).screen_share);
    }
  }

  #update(share: Share): void {
    if (share.state === "requested") {
      this.#show("Waiting for the visitor to accept…", true);
    } else if (share.state === "active") {
      this.#show("Live · read-only · inputs are hidden", true);
    } else if (share.state === "declined") {
      this.#asking = false;
      this.#show("The visitor declined to share their screen.", false);
    } else {
      this.#asking = false;
      this.#show(ENDED_BY[share.ended_by ?? "agent"] ?? "Screen sharing ended.", false);
    }
    this.root.dataset.state = share.state;
  }

  async #stopShare(): Promise<void> {
    const id = this.#conversation;
    if (!id) return;
    try {
      const r = await this.#host.client.agent.stopShare.mutate({ conversation: id });
      if (r.screen_share) this.#update(r.screen_share);
    } catch (err) {
      this.#host.say(describeFailure(err).message);
    }
  }

  #show(text: string, live: boolean): void {
    fill(this.#status, text);
    this.#stop.hidden = !live;
  }

  #post(message: unknown): void {
    this.#frame?.contentWindow?.postMessage(message, location.origin);
  }
}
