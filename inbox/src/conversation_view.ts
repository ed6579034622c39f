/// <reference lib="dom" />
/**
 * The open conversation: its header and actions, the messages, the private
 * notes and the ownership log. The composer is its own element, kept across
 * renders so a draft is never lost to a live update.
 */
import type { ActiveConversation } from "../../clients/agent_client.ts";
import { fill, h } from "./dom.ts";
import { SECTION_WORDS } from "../../domain/conversations/state_words.ts";
import { correctionForm, questionBefore } from "./correction_form.ts";

/** Saves a correction of an AI reply; resolves with an error text, or null when saved. */
export type SaveCorrection = (
  messageId: number,
  question: string,
  answer: string,
) => Promise<string | null>;

export type ConversationAction =
  | "takeover"
  | "release"
  | "resolve"
  | "reopen"
  | "assign-me"
  | "unassign"
  | "watch"
  | "unwatch"
  | "block"
  | "unblock"
  | "screen"
  | "back";

const EVENT_TEXT: Record<string, string> = {
  human_connected: "taken over",
  released: "handed back to the AI",
  resolved: "resolved",
  closed: "closed",
  reopened: "reopened",
  handoff_requested: "asked for a person",
  ai_failed: "the AI could not answer",
  assigned: "assigned",
  unassigned: "unassigned",
  visitor_blocked: "visitor blocked",
  visitor_unblocked: "visitor unblocked",
};

export class ConversationView {
  readonly root: HTMLElement;
  #header: HTMLElement;
  #thread: HTMLElement;
  #extras: HTMLElement;
  #typing: HTMLElement;
  #typingTimer: ReturnType<typeof setTimeout> | null = null;
  #shownKey = "";
  #messages: ActiveConversation["messages"] = [];
  /** The open "Correct this answer" form, kept across live redraws of the thread. */
  #correcting: { messageId: number; form: HTMLFormElement } | null = null;

  constructor(
    composer: HTMLElement,
    onAction: (a: ConversationAction) => void,
    private readonly saveCorrection: SaveCorrection | null = null,
  ) {
    this.#header = h("header", { class: "conv-header" });
    this.#header.addEventListener("click", (e) => {
      const b = (e.target as Element).closest<HTMLButtonElement>("button[data-action]");
      if (b?.dataset.action && !b.disabled) onAction(b.dataset.action as ConversationAction);
    });
    this.#thread = h("ol", { class: "thread", "aria-label": "Messages", "aria-live": "polite" });
    this.#thread.addEventListener("click", (e) => {
      const b = (e.target as Element).closest<HTMLButtonElement>("button[data-correct]");
      if (b) this.#openCorrection(Number(b.dataset.correct));
    });
    this.#extras = h("div", { class: "conv-extras" });
    this.#typing = h("p", { class: "typing-note", "aria-live": "polite" });
    this.root = h(
      "main",
      { class: "pane conv-pane", "aria-label": "Conversation" },
      this.#header,
      h("div", { class: "thread-scroll" }, this.#thread, this.#extras),
      this.#typing,
      composer,
    );
    this.renderEmpty();
  }

  /** Puts a panel (the visitor's screen) between the header and the thread. */
  attach(panel: HTMLElement): void {
    this.root.insertBefore(panel, this.#thread.parentElement);
  }

  /** "… is typing" above the composer, gone after a few quiet seconds or when told. */
  showTyping(who: string | null): void {
    if (this.#typingTimer) clearTimeout(this.#typingTimer);
    this.#typing.textContent = who ? `${who} is typing…` : "";
    this.#typingTimer = who ? setTimeout(() => this.showTyping(null), 6000) : null;
  }

  /** Nothing open, or (`missing`) the conversation asked for is not in this workspace. */
  renderEmpty(missing = false): void {
    this.#shownKey = "";
    this.#correcting = null;
    fill(
      this.#header,
      h("button", { type: "button", class: "back", "data-action": "back" }, "‹ Inbox"),
      h("h2", { class: "conv-title" }, missing ? "Conversation not found" : "No conversation open"),
    );
    fill(
      this.#thread,
      h(
        "li",
        { class: "empty" },
        "Keys: j / k next and previous · r reply · n note · e resolve · t take over · / filter · Esc close",
      ),
    );
    fill(this.#extras);
  }

  render(c: ActiveConversation): void {
    const closed = c.status === "closed";
    const btn = (action: ConversationAction, label: string, key?: string) =>
      h(
        "button",
        {
          type: "button",
          class: "act",
          "data-action": action,
          title: key ? `${label} (${key})` : label,
        },
        label,
      );
    fill(
      this.#header,
      h("button", { type: "button", class: "back", "data-action": "back" }, "‹ Inbox"),
      h(
        "div",
        { class: "conv-who" },
        h("h2", { class: "conv-title" }, c.visitor),
        h(
          "p",
          { class: "conv-sub" },
          h(
            "span",
            { class: `badge status-${c.group}`, "data-status": c.status },
            SECTION_WORDS[c.group],
          ),
          ` ${c.chatbot}`,
          c.assigned_to ? ` · ${c.mine ? "assigned to you" : `assigned to ${c.assigned_to}`}` : "",
          c.blocked ? " · blocked" : "",
        ),
        c.waiting_reason ? h("p", { class: "conv-reason", role: "note" }, c.waiting_reason) : null,
      ),
      h(
        "div",
        { class: "actions" },
        closed ? btn("reopen", "Reopen") : [
          c.status === "agent" ? btn("release", "Release") : btn("takeover", "Take over", "t"),
          btn("resolve", "Resolve", "e"),
        ],
        c.mine ? btn("unassign", "Unassign") : btn("assign-me", "Assign to me"),
        c.watching ? btn("unwatch", "Unwatch") : btn("watch", "Watch"),
        c.blocked ? btn("unblock", "Unblock") : btn("block", "Block"),
        // branding `screen_share`: offered only where the bot allows it, on an open conversation.
        c.screen_share && !closed ? btn("screen", "View screen") : null,
      ),
    );
    // The thread is rebuilt only when its messages change, so scrolling and
    // selection survive the many live refreshes that change nothing here.
    const last = c.messages[c.messages.length - 1];
    const key = `${c.id}:${c.messages.length}:${last?.id ?? 0}`;
    if (key !== this.#shownKey) {
      const scroller = this.#thread.parentElement!;
      const sameConversation = this.#shownKey.startsWith(`${c.id}:`);
      if (!sameConversation) this.#correcting = null;
      this.#messages = c.messages;
      const atBottom = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 40;
      this.#shownKey = key;
      fill(
        this.#thread,
        c.messages.length === 0 ? h("li", { class: "empty" }, "No messages yet.") : null,
        c.messages.map((m) =>
          h(
            "li",
            { class: `msg msg-${m.role}`, "data-message-id": m.id },
            h("span", { class: "msg-who" }, m.role === "assistant" ? "AI" : m.role),
            h("div", { class: "msg-body" }, m.content),
            h("time", { class: "msg-at" }, m.at),
            m.role === "assistant" && this.saveCorrection
              ? h(
                "button",
                { type: "button", class: "link correct-answer", "data-correct": m.id },
                "Correct this answer",
              )
              : null,
          )
        ),
      );
      this.#placeCorrection();
      if (!sameConversation || atBottom) scroller.scrollTop = scroller.scrollHeight;
    }
    fill(
      this.#extras,
      c.notes.length
        ? h(
          "section",
          { class: "notes", "aria-label": "Private notes" },
          h("h3", null, "Private notes"),
          h(
            "ul",
            null,
            c.notes.map((n) =>
              h(
                "li",
                { class: "note" },
                h("div", { class: "note-body" }, n.body),
                h("span", { class: "note-by" }, `${n.author ?? "Someone"} · ${n.at}`),
              )
            ),
          ),
        )
        : null,
      c.events.length
        ? h(
          "section",
          { class: "events", "aria-label": "Activity" },
          h("h3", null, "Activity"),
          h(
            "ul",
            null,
            c.events.map((e) =>
              h(
                "li",
                { class: "event" },
                `${e.at} · ${EVENT_TEXT[e.type] ?? e.type}${
                  e.by ? ` by ${e.by}` : e.source === "visitor" ? " by the visitor" : ""
                }`,
              )
            ),
          ),
        )
        : null,
    );
  }

  /** Opens the inline correction form under an AI reply (one at a time). */
  #openCorrection(messageId: number): void {
    const save = this.saveCorrection;
    if (!save) return;
    if (this.#correcting?.messageId === messageId) return;
    const close = () => {
      this.#correcting?.form.remove();
      this.#correcting = null;
    };
    close();
    const form = correctionForm({
      question: questionBefore(this.#messages, messageId),
      save: (question, answer) => save(messageId, question, answer),
      close,
    });
    this.#correcting = { messageId, form };
    this.#placeCorrection();
    form.querySelector<HTMLTextAreaElement>("textarea[name=answer]")?.focus();
  }

  #placeCorrection(): void {
    if (!this.#correcting) return;
    const li = this.#thread.querySelector(`li[data-message-id="${this.#correcting.messageId}"]`);
    if (li) li.appendChild(this.#correcting.form);
    else this.#correcting = null;
  }
}
