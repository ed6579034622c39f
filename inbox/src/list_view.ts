/// <reference lib="dom" />
/** The inbox pane: the sections with their counts, a text filter, and the rows. */
import type { InboxFilter, InboxRow, InboxView } from "../../clients/agent_client.ts";
import { fill, h } from "./dom.ts";
import { SECTION_WORDS } from "../../domain/conversations/state_words.ts";

/** The sections in the words of docs/vocabulary.md; "With a human" is "With you" + "With a teammate". */
export const SECTIONS: { filter: InboxFilter; label: string }[] = (
  ["waiting", "mine", "team", "human", "ai", "resolved", "all"] as const
).map((filter) => ({ filter, label: SECTION_WORDS[filter] }));

function sectionCount(view: InboxView, filter: InboxFilter): number {
  switch (filter) {
    case "all":
      return view.counts.all;
    case "human":
      return view.counts.human;
    default:
      return view.groups[filter];
  }
}

export interface ListHandlers {
  onFilter(filter: InboxFilter): void;
  onSearch(text: string): void;
  onOpen(id: string): void;
}

export class ListView {
  readonly root: HTMLElement;
  #tabs: HTMLElement;
  #rows: HTMLUListElement;
  #summary: HTMLElement;
  #search: HTMLInputElement;

  constructor(handlers: ListHandlers) {
    this.#tabs = h("div", { class: "sections", role: "tablist", "aria-label": "Sections" });
    this.#search = h("input", {
      type: "search",
      class: "search",
      placeholder: "Filter by name, e-mail or text  ( / )",
      "aria-label": "Filter conversations",
      onInput: () => handlers.onSearch(this.#search.value),
    });
    this.#rows = h("ul", { class: "rows", role: "listbox", "aria-label": "Conversations" });
    this.#rows.addEventListener("click", (e) => {
      const li = (e.target as Element).closest<HTMLElement>("li[data-id]");
      if (li?.dataset.id) handlers.onOpen(li.dataset.id);
    });
    this.#summary = h("p", { class: "list-summary", "aria-live": "polite" });
    this.#tabs.addEventListener("click", (e) => {
      const b = (e.target as Element).closest<HTMLElement>("button[data-filter]");
      if (b?.dataset.filter) handlers.onFilter(b.dataset.filter as InboxFilter);
    });
    this.root = h(
      "nav",
      { class: "pane list-pane", "aria-label": "Inbox" },
      this.#tabs,
      this.#search,
      this.#rows,
      this.#summary,
    );
  }

  focusSearch(): void {
    this.#search.focus();
  }

  render(view: InboxView, filter: InboxFilter, openId: string | null, search: string): void {
    fill(
      this.#tabs,
      SECTIONS.map((s) =>
        h(
          "button",
          {
            type: "button",
            role: "tab",
            class: "section",
            "data-filter": s.filter,
            "aria-selected": s.filter === filter ? "true" : "false",
          },
          h("span", { class: "section-label" }, s.label),
          h("span", { class: "count", "data-count": s.filter }, sectionCount(view, s.filter)),
        )
      ),
    );
    const rows = filterRows(view.conversations, search);
    fill(this.#rows, rows.map((r) => rowItem(r, r.id === openId)));
    const more = view.listed < sectionCount(view, filter)
      ? ` of ${sectionCount(view, filter)}`
      : "";
    fill(
      this.#summary,
      rows.length === 0
        ? "Nothing here."
        : `${rows.length}${search ? " matching" : ""}${more} conversation${
          rows.length === 1 ? "" : "s"
        }`,
    );
  }
}

function filterRows(rows: InboxRow[], search: string): InboxRow[] {
  const q = search.trim().toLowerCase();
  if (!q) return rows;
  return rows.filter((r) =>
    [r.visitor, r.email ?? "", r.preview ?? "", r.chatbot, ...r.tags.map((t) => t.name)]
      .some((s) => s.toLowerCase().includes(q))
  );
}

function rowItem(r: InboxRow, selected: boolean): HTMLLIElement {
  return h(
    "li",
    {
      class: `row group-${r.group}${r.unread > 0 ? " is-unread" : ""}`,
      role: "option",
      "aria-selected": selected ? "true" : "false",
      "data-id": r.id,
      tabindex: "-1",
    },
    h(
      "div",
      { class: "row-top" },
      h("span", { class: `dot${r.online ? " online" : ""}`, title: r.online ? "Online" : "Away" }),
      h("span", { class: "row-name" }, r.visitor),
      h("span", { class: "row-time" }, r.last_at),
    ),
    h("div", { class: "row-preview" }, r.preview ?? ""),
    r.waiting_reason ? h("div", { class: "row-reason" }, r.waiting_reason) : null,
    h(
      "div",
      { class: "row-meta" },
      h("span", { class: `badge status-${r.group}` }, SECTION_WORDS[r.group]),
      r.unread > 0 ? h("span", { class: "badge unread" }, `${r.unread} new`) : null,
      r.waiting_seconds !== null
        ? h("span", { class: "badge waiting" }, `waiting ${waited(r.waiting_seconds)}`)
        : null,
      r.assigned_to ? h("span", { class: "assignee" }, r.mine ? "you" : r.assigned_to) : null,
      r.tags.map((t) => h("span", { class: "tag" }, t.name)),
    ),
  );
}

export function waited(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h`;
}
