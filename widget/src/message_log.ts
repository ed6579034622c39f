/// <reference lib="dom" />
/**
 * The visible conversation: one bubble per message, a live bubble that grows
 * while a reply streams, system notes, and cards (pre-chat form, rating).
 * Message ids already shown are remembered so snapshots and heartbeats never
 * duplicate a message.
 */
import { h } from "./dom.ts";
import { renderText, safeAnchor } from "./render_text.ts";
import type { ChatMessage, Role, Source } from "./types.ts";
import { httpUrl } from "./view.ts";

const WHO: Record<Role, string> = { visitor: "You", assistant: "Assistant", agent: "Agent" };

export interface LiveBubble {
  append(delta: string): void;
  finish(id: number | null, sources: Source[]): void;
  fail(message: string): void;
  remove(): void;
}

export class MessageLog {
  private readonly shown = new Set<number>();

  constructor(
    private readonly log: HTMLElement,
    private readonly avatars: { assistant: string | null; agent: string | null },
  ) {}

  clear(): void {
    this.shown.clear();
    this.log.replaceChildren();
  }

  /** Adds a stored message unless it is already on screen. */
  add(m: Pick<ChatMessage, "id" | "role" | "content"> & { at?: string }): HTMLElement | null {
    if (m.id > 0 && this.shown.has(m.id)) return null;
    if (m.id > 0) this.shown.add(m.id);
    const { row, bubble } = this.row(m.role);
    renderText(bubble, m.content);
    const at = m.at ? new Date(m.at) : null;
    if (at && !isNaN(at.getTime())) bubble.title = at.toLocaleString();
    return row;
  }

  /** Marks an id as shown (the stored id of a message first drawn locally). */
  remember(id: number | null | undefined): void {
    if (typeof id === "number") this.shown.add(id);
  }

  /** A bubble that fills as deltas arrive; shows a typing indicator until the first one. */
  live(): LiveBubble {
    const { row, bubble } = this.row("assistant");
    const typing = h("span", { class: "typing", role: "img", "aria-label": "Typing" });
    typing.append(h("i"), h("i"), h("i"));
    bubble.append(typing);
    row.setAttribute("aria-busy", "true");
    let text = "";
    return {
      append: (delta) => {
        text += delta;
        renderText(bubble, text);
        this.scroll();
      },
      finish: (id, sources) => {
        row.removeAttribute("aria-busy");
        this.remember(id);
        if (!text) renderText(bubble, "…");
        const links = sources
          .map((s) => (s.url ? safeAnchor(s.url, s.title || s.url) : null))
          .filter((a): a is HTMLAnchorElement => a !== null);
        if (links.length) {
          bubble.append(
            h(
              "ul",
              { class: "sources", "aria-label": "Sources" },
              ...links.map((a) => h("li", {}, a)),
            ),
          );
        }
        this.scroll();
      },
      fail: (message) => {
        row.removeAttribute("aria-busy");
        row.classList.add("error");
        if (text) bubble.append(document.createTextNode("\n"));
        else bubble.replaceChildren();
        bubble.append(h("em", {}, message));
        this.scroll();
      },
      remove: () => row.remove(),
    };
  }

  /** A centred line of text: status changes, errors outside a reply. */
  note(text: string): HTMLElement {
    const el = h("p", { class: "note" }, text);
    this.log.append(el);
    this.scroll();
    return el;
  }

  /** Appends a card (form, rating) at the end of the log. */
  card(el: HTMLElement): void {
    this.log.append(el);
    this.scroll();
  }

  private row(role: Role): { row: HTMLElement; bubble: HTMLElement } {
    const bubble = h("div", { class: "bubble" });
    const avatar = role === "visitor" ? null : httpUrl(this.avatars[role]);
    const row = h(
      "div",
      { class: `msg ${role}`, "data-role": role },
      avatar ? h("img", { src: avatar, alt: "" }) : null,
      h("div", {}, h("span", { class: role === "visitor" ? "who sr" : "who" }, WHO[role]), bubble),
    );
    this.log.append(row);
    this.scroll();
    return { row, bubble };
  }

  private scroll(): void {
    this.log.scrollTop = this.log.scrollHeight;
  }
}
