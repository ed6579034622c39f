/// <reference lib="dom" />
/**
 * The composer: a reply or a private note. Typing `/` and a canned reply's
 * shortcut offers it (Tab or Enter puts its text in); Enter sends, Shift+Enter
 * is a new line. Every reply carries a `client_id` kept until it is
 * delivered, so a retry after a failure never sends the message twice.
 */
import type { CannedReply } from "../../clients/agent_client.ts";
import { fill, h } from "./dom.ts";

export type ComposerMode = "reply" | "note";

export interface ComposerHandlers {
  onSend(mode: ComposerMode, text: string, clientId: string): Promise<boolean>;
  onCannedUsed(canned: CannedReply): void;
  /** The agent is (or stopped) typing a reply; called at most every few seconds. */
  onTyping(typing: boolean): void;
  /** Asks the AI for a suggested reply (given the draft); null when that service is not offered. */
  onSuggest: ((draft: string) => Promise<{ id: number; text: string } | null>) | null;
  /** What became of a suggestion: sent as it was, sent edited, or dropped. */
  onSuggestionOutcome(id: number, outcome: "inserted" | "edited" | "dismissed"): void;
}

export class Composer {
  readonly root: HTMLElement;
  #input: HTMLTextAreaElement;
  #picker: HTMLUListElement;
  #modeButtons: HTMLButtonElement[];
  #send: HTMLButtonElement;
  #mode: ComposerMode = "reply";
  #canned: CannedReply[] = [];
  #matches: CannedReply[] = [];
  #pick = 0;
  #pending: { text: string; clientId: string } | null = null;
  #suggestion: { id: number; text: string } | null = null;
  #suggestButton: HTMLButtonElement | null;
  #sending = false;
  #typingSent = 0;
  #typingStop: ReturnType<typeof setTimeout> | null = null;

  constructor(private handlers: ComposerHandlers) {
    this.#input = h("textarea", {
      class: "composer-input",
      rows: 3,
      "aria-label": "Reply",
      placeholder: "Reply to the visitor (r). Type / for canned replies.",
      onInput: () => {
        this.#updatePicker();
        this.#typed();
      },
      onKeydown: (e) => this.#onKey(e as KeyboardEvent),
    });
    this.#picker = h("ul", { class: "canned-picker", role: "listbox", hidden: true });
    this.#picker.addEventListener("mousedown", (e) => {
      const li = (e.target as Element).closest<HTMLElement>("li[data-index]");
      if (!li) return;
      e.preventDefault();
      this.#choose(Number(li.dataset.index));
    });
    this.#modeButtons = (["reply", "note"] as const).map((mode) =>
      h("button", {
        type: "button",
        class: "mode",
        "data-mode": mode,
        "aria-pressed": mode === "reply" ? "true" : "false",
        onClick: () => this.setMode(mode),
      }, mode === "reply" ? "Reply" : "Private note")
    );
    this.#send = h("button", { type: "submit", class: "send" }, "Send");
    const suggest = this.#suggestButton = handlers.onSuggest
      ? h("button", {
        type: "button",
        class: "suggest",
        title: "Suggest a reply with AI",
        onClick: () => void this.#suggest(),
      }, "Suggest")
      : null;
    this.root = h(
      "form",
      {
        class: "composer",
        onSubmit: (e) => {
          e.preventDefault();
          void this.send();
        },
      },
      h("div", { class: "composer-modes" }, this.#modeButtons, suggest),
      this.#picker,
      this.#input,
      h(
        "div",
        { class: "composer-bar" },
        h("span", { class: "hint" }, "Enter to send"),
        this.#send,
      ),
    );
  }

  setCanned(canned: CannedReply[]): void {
    this.#canned = canned;
  }

  /** The open conversation's bot has the copilot on (or off: no Suggest button). */
  setCopilot(on: boolean): void {
    if (this.#suggestButton) this.#suggestButton.hidden = !on;
  }

  /** `copilot_autostart`: a suggestion asked for by the inbox, unless the agent is writing. */
  autoSuggest(): void {
    if (!this.#input.value.trim() && this.#mode === "reply") void this.#suggest(false);
  }

  setEnabled(enabled: boolean): void {
    this.#input.disabled = !enabled;
    this.#send.disabled = !enabled || this.#sending;
  }

  setMode(mode: ComposerMode): void {
    this.#mode = mode;
    for (const b of this.#modeButtons) {
      b.setAttribute("aria-pressed", b.dataset.mode === mode ? "true" : "false");
    }
    this.root.classList.toggle("is-note", mode === "note");
    this.#input.setAttribute("aria-label", mode === "note" ? "Private note" : "Reply");
    this.#input.placeholder = mode === "note"
      ? "A private note for the team (never shown to the visitor)"
      : "Reply to the visitor (r). Type / for canned replies.";
  }

  focus(mode: ComposerMode): void {
    this.setMode(mode);
    this.#input.focus();
  }

  /** A new conversation was opened: the draft belongs to the old one. */
  reset(): void {
    this.#settleSuggestion(null);
    this.#stopTyping();
    this.#input.value = "";
    this.#pending = null;
    this.#updatePicker();
  }

  /** Typing a reply (never a note) is announced every 3 s, and its end after 4 s of quiet. */
  #typed(): void {
    if (this.#mode !== "reply") return;
    if (Date.now() - this.#typingSent > 3000) {
      this.#typingSent = Date.now();
      this.handlers.onTyping(true);
    }
    if (this.#typingStop) clearTimeout(this.#typingStop);
    this.#typingStop = setTimeout(() => this.#stopTyping(), 4000);
  }

  #stopTyping(): void {
    if (this.#typingStop) clearTimeout(this.#typingStop);
    this.#typingStop = null;
    if (this.#typingSent) this.handlers.onTyping(false);
    this.#typingSent = 0;
  }

  async send(): Promise<void> {
    const text = this.#input.value;
    if (!text.trim() || this.#sending) return;
    this.#stopTyping();
    if (!this.#pending || this.#pending.text !== text) {
      this.#pending = { text, clientId: crypto.randomUUID() };
    }
    this.#sending = true;
    this.#send.disabled = true;
    try {
      const ok = await this.handlers.onSend(this.#mode, text, this.#pending.clientId);
      if (ok && this.#mode === "reply") this.#settleSuggestion(text);
      if (ok && this.#input.value === text) {
        this.#input.value = "";
        this.#pending = null;
        this.#updatePicker();
      }
    } finally {
      this.#sending = false;
      this.#send.disabled = this.#input.disabled;
    }
  }

  #onKey(e: KeyboardEvent): void {
    if (this.#matches.length && (e.key === "ArrowDown" || e.key === "ArrowUp")) {
      e.preventDefault();
      const n = this.#matches.length;
      this.#pick = (this.#pick + (e.key === "ArrowDown" ? 1 : n - 1)) % n;
      this.#renderPicker();
      return;
    }
    if (this.#matches.length && (e.key === "Tab" || e.key === "Enter") && !e.shiftKey) {
      e.preventDefault();
      this.#choose(this.#pick);
      return;
    }
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      void this.send();
      return;
    }
    if (e.key === "Escape") {
      e.preventDefault();
      if (this.#matches.length) {
        this.#matches = [];
        this.#renderPicker();
      } else {
        this.#input.blur();
      }
    }
  }

  #updatePicker(): void {
    const v = this.#input.value;
    this.#matches = this.#mode === "reply" && /^\/\S*$/.test(v)
      ? this.#canned.filter((c) => c.shortcut?.toLowerCase().startsWith(v.toLowerCase()))
      : [];
    this.#pick = 0;
    this.#renderPicker();
  }

  #renderPicker(): void {
    this.#picker.hidden = this.#matches.length === 0;
    fill(
      this.#picker,
      this.#matches.map((c, i) =>
        h(
          "li",
          { role: "option", "data-index": i, "aria-selected": i === this.#pick ? "true" : "false" },
          h("strong", null, c.shortcut),
          ` ${c.title}: `,
          h("span", { class: "canned-body" }, c.body),
        )
      ),
    );
  }

  #choose(index: number): void {
    const c = this.#matches[index];
    if (!c) return;
    this.#input.value = c.body;
    this.#matches = [];
    this.#renderPicker();
    this.#input.focus();
    this.handlers.onCannedUsed(c);
  }

  async #suggest(asked = true): Promise<void> {
    const got = await this.handlers.onSuggest?.(this.#input.value);
    // Started by the inbox: never over what the agent began typing meanwhile.
    if (!asked && this.#input.value.trim()) return;
    if (got?.text) {
      this.#settleSuggestion(null);
      this.#suggestion = got;
      this.setMode("reply");
      this.#input.value = got.text;
      if (asked) this.#input.focus();
    }
  }

  /** Reports the open suggestion's fate: `sent` the reply text, null when it was dropped. */
  #settleSuggestion(sent: string | null): void {
    const s = this.#suggestion;
    if (!s) return;
    this.#suggestion = null;
    this.handlers.onSuggestionOutcome(
      s.id,
      sent === null ? "dismissed" : sent === s.text ? "inserted" : "edited",
    );
  }
}
