/// <reference lib="dom" />
/**
 * The visitor panel: who the visitor is and where they have been (the
 * `active` fields), the conversation's tags with attach and detach, and the
 * AI's summary and customer context when the service has them.
 */
import type { ActiveConversation, Tag } from "../../clients/agent_client.ts";
import { type Child, fill, h } from "./dom.ts";
import { waited } from "./list_view.ts";

export interface VisitorHandlers {
  onAttach(tagId: number): void;
  onDetach(tagId: number): void;
}

export class VisitorView {
  readonly root: HTMLElement;
  #body: HTMLElement;

  constructor(handlers: VisitorHandlers) {
    this.#body = h("div", { class: "visitor-body" });
    this.#body.addEventListener("click", (e) => {
      const b = (e.target as Element).closest<HTMLElement>("button[data-detach]");
      if (b?.dataset.detach) handlers.onDetach(Number(b.dataset.detach));
    });
    this.#body.addEventListener("change", (e) => {
      const s = e.target as HTMLSelectElement;
      if (s.matches("select.add-tag") && s.value) handlers.onAttach(Number(s.value));
    });
    this.root = h(
      "aside",
      { class: "pane visitor-pane", "aria-label": "Visitor" },
      h("h2", { class: "pane-title" }, "Visitor"),
      this.#body,
    );
    this.renderEmpty();
  }

  renderEmpty(): void {
    fill(this.#body, h("p", { class: "muted" }, "Open a conversation to see its visitor."));
  }

  render(c: ActiveConversation, catalogue: Tag[]): void {
    const attached = new Set(c.tags.map((t) => t.id));
    const free = catalogue.filter((t) => !attached.has(t.id));
    fill(
      this.#body,
      h(
        "dl",
        { class: "facts" },
        fact("Name", c.visitor),
        fact("E-mail", c.email),
        fact("Phone", c.phone),
        fact("Status", c.online ? "online now" : c.last_seen ? `last seen ${c.last_seen}` : null),
        fact(
          "Page",
          c.page
            ? h("span", { class: "url" }, c.page_title ? `${c.page_title} · ${c.page}` : c.page)
            : null,
        ),
        fact("Came from", c.referrer),
        fact("Entry page", c.entry_page),
        fact("Page views", c.page_views),
        fact("Device", [c.device, c.browser, c.os].filter(Boolean).join(" · ") || null),
        fact("Locale", [c.locale, c.timezone].filter(Boolean).join(" · ") || null),
        fact("Joined", c.joined),
        fact("Waiting", c.waiting_seconds !== null ? waited(c.waiting_seconds) : null),
        fact("Routed by", c.routed_by),
        fact("Watchers", c.watchers.map((w) => w.name).join(", ") || null),
      ),
      // Owners and administrators see everything held about the visitor, export
      // or erase it, on the dashboard's contact screen (docs/data-protection.md).
      c.visitor || c.email
        ? h(
          "p",
          { class: "contact-link" },
          h("a", {
            href: `/dashboard#/contacts/of/${encodeURIComponent(c.id)}`,
            target: "_blank",
            rel: "noopener",
          }, "Open the contact in the dashboard"),
        )
        : null,
      c.prechat.length
        ? section(
          "Pre-chat answers",
          h("dl", { class: "facts" }, c.prechat.flatMap((p) => fact(p.field, p.value) ?? [])),
        )
        : null,
      section(
        "Tags",
        h(
          "ul",
          { class: "tags" },
          c.tags.map((t) =>
            h(
              "li",
              { class: "tag" },
              t.name,
              h("button", {
                type: "button",
                class: "detach",
                "data-detach": t.id,
                "aria-label": `Remove tag ${t.name}`,
              }, "×"),
            )
          ),
        ),
        free.length
          ? h(
            "select",
            { class: "add-tag", "aria-label": "Add a tag" },
            h("option", { value: "" }, "Add a tag…"),
            free.map((t) => h("option", { value: t.id }, t.name)),
          )
          : null,
      ),
      c.summary || c.intent || c.revenue_label
        ? section(
          "Summary",
          c.summary ? h("p", { class: "summary" }, c.summary) : null,
          h(
            "dl",
            { class: "facts" },
            fact("Intent", c.intent),
            fact("Customer", c.revenue_label),
            fact("Lead", c.lead_status),
          ),
        )
        : null,
      c.journey.length
        ? section(
          "Journey",
          h(
            "ol",
            { class: "journey" },
            c.journey.map((j) =>
              h("li", null, h("span", { class: "url" }, j.url), j.at ? ` · ${j.at}` : "")
            ),
          ),
        )
        : null,
    );
  }
}

function fact(label: string, value: Child | Child[]): HTMLElement[] | null {
  if (value === null || value === undefined || value === "") return null;
  return [h("dt", null, label), h("dd", null, ...(Array.isArray(value) ? value : [value]))];
}

function section(title: string, ...children: (Child | Child[])[]): HTMLElement {
  return h("section", { class: "visitor-section" }, h("h3", null, title), ...children);
}
