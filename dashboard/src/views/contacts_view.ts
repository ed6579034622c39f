/// <reference lib="dom" />
/**
 * Contacts (`#/contacts`, docs/dashboard.md#contacts): visitors who left a
 * name, an e-mail address or a verified user id, searched by part of a name
 * or address, newest first with "Load more" (the server's keyset cursor). A
 * contact (`#/contacts/<id>`) shows its conversations, ratings, leads, pages,
 * device and location; owners and administrators download its data as JSON
 * and erase it behind a confirmation that says what goes. The retention
 * period is set at the foot of the list. Every value is shown as text.
 */
import { h } from "../../../inbox/src/dom.ts";
import { keysetList } from "../keyset_list.ts";
import type { DashboardOutputs } from "../../../clients/dashboard_client.ts";
import type { Screen, ScreenContext } from "../screen.ts";
import { errorLine, failureText, field, formatDate, pageHeader, showFieldErrors } from "../ui.ts";

type Row = DashboardOutputs["listContacts"]["data"][number];

function row(r: Row): HTMLElement {
  return h(
    "tr",
    { "data-contact": String(r.id) },
    h("td", null, h("a", { href: `#/contacts/${r.id}` }, r.name ?? r.email ?? r.user_id ?? "—")),
    h("td", { "data-label": "E-mail" }, r.email ?? "—"),
    h("td", { "data-label": "Bot" }, r.bot.name),
    h("td", { "data-label": "Conversations" }, String(r.conversations)),
    h("td", { "data-label": "Rating" }, r.rating === null ? "—" : `${r.rating}/5`),
    h("td", { "data-label": "Last seen" }, formatDate(r.last_seen_at)),
    h("td", { "data-label": "Country" }, r.country ?? "—"),
  );
}

function saveJson(name: string, data: unknown): void {
  const blob = new Blob([JSON.stringify(data, null, 2)], { type: "application/json" });
  const url = URL.createObjectURL(blob);
  const a = h("a", { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

async function retentionForm(ctx: ScreenContext): Promise<HTMLElement> {
  const { data } = await ctx.client.showRetention.query({});
  const days = h("input", {
    name: "retention_days",
    type: "number",
    min: 30,
    max: 3650,
    value: data.retention_days === null ? "" : String(data.retention_days),
    placeholder: "Keep until erased",
    disabled: !ctx.can("manage-workspace"),
  });
  const error = errorLine();
  const form: HTMLFormElement = h(
    "form",
    {
      class: "form-grid retention",
      "aria-label": "Retention",
      onSubmit: async (e) => {
        e.preventDefault();
        const v = days.value.trim();
        try {
          await ctx.client.updateRetention.mutate({ retention_days: v ? Number(v) : null });
          error.textContent = "";
          ctx.notify(v ? `Resolved conversations are kept ${v} days.` : "Retention is off.");
        } catch (err) {
          error.textContent = showFieldErrors(form, err);
        }
      },
    },
    field(
      "Delete resolved conversations after (days)",
      days,
      "30 to 3650; empty keeps them until erased. Visitors left with no conversation go too.",
    ),
    error,
    ctx.can("manage-workspace")
      ? h("div", { class: "form-actions" }, h("button", { type: "submit" }, "Save retention"))
      : null,
  );
  return form;
}

async function contactView(ctx: ScreenContext, id: string): Promise<HTMLElement> {
  const { data: c } = await ctx.client.showContact.query({ contact: id });
  ctx.dataReady();
  const error = errorLine();
  const title = c.name ?? c.email ?? c.user_id ?? c.visitor_id;
  const facts: [string, string][] = [
    ["E-mail", c.email ?? "—"],
    ["Phone", c.phone ?? "—"],
    ["Verified user id", c.user_id ?? "—"],
    ["Bot", c.bot.name],
    ["Visitor id", c.visitor_id],
    ["First seen", formatDate(c.first_seen_at)],
    ["Last seen", formatDate(c.last_seen_at)],
    ["Leads (addresses left)", c.leads.join(", ") || "—"],
    ["Pages", c.visit ? [c.visit.entry_page, c.visit.page_url].filter(Boolean).join(" → ") : "—"],
    ["Device", c.visit?.device ?? "—"],
    [
      "Location",
      [c.visit?.country, c.visit?.timezone, c.visit?.locale].filter(Boolean).join(", ") || "—",
    ],
  ];
  const exportButton = h("button", {
    type: "button",
    onClick: async () => {
      try {
        const { data } = await ctx.client.exportContact.query({ contact: id });
        saveJson(`contact-${id}.json`, data);
        ctx.notify("The contact's data was downloaded.");
      } catch (err) {
        error.textContent = failureText(err);
      }
    },
  }, "Download data (JSON)");
  const confirmErase = h("button", { type: "button", class: "danger primary" }, "Erase for good");
  const cancel = h("button", { type: "button" }, "Cancel");
  const dialog = h(
    "dialog",
    { class: "confirm", "aria-labelledby": "erase-title" },
    h("h2", { id: "erase-title" }, `Erase ${title}?`),
    h(
      "p",
      null,
      `Their ${c.conversations} conversations with every message, note, tag, rating and screen-share record, the pages they visited, queued alerts and webhook deliveries about them are deleted, with the conversations of the same e-mail address or verified user id. This cannot be undone.`,
    ),
    h("div", { class: "form-actions" }, confirmErase, cancel),
  );
  cancel.addEventListener("click", () => dialog.close());
  confirmErase.addEventListener("click", async () => {
    confirmErase.disabled = true;
    try {
      const { data } = await ctx.client.eraseContact.mutate({ contact: id });
      dialog.close();
      ctx.notify(
        `Erased: ${data.counts.conversations ?? 0} conversations, ${
          data.counts.messages ?? 0
        } messages.`,
      );
      ctx.navigate("contacts");
    } catch (err) {
      error.textContent = failureText(err);
      confirmErase.disabled = false;
      dialog.close();
    }
  });
  const eraseButton = h("button", {
    type: "button",
    class: "danger",
    onClick: () => dialog.showModal(),
  }, "Erase contact…");
  return h(
    "section",
    { class: "contact" },
    pageHeader(title, h("a", { href: "#/contacts" }, "All contacts")),
    h("dl", { class: "facts" }, facts.flatMap(([k, v]) => [h("dt", null, k), h("dd", null, v)])),
    h("h2", null, "Conversations"),
    h(
      "table",
      { class: "table" },
      h(
        "thead",
        null,
        h("tr", null, ...["Started", "Status", "Messages", "Rating"].map((t) => h("th", null, t))),
      ),
      h(
        "tbody",
        null,
        c.conversation_list.map((v) =>
          h(
            "tr",
            null,
            h("td", null, h("a", { href: `#/conversations/${v.id}` }, formatDate(v.started_at))),
            h("td", null, v.status),
            h("td", null, String(v.messages)),
            h("td", null, v.rating === null ? "—" : `${v.rating}/5 ${v.rating_comment ?? ""}`),
          )
        ),
      ),
    ),
    error,
    ctx.can("manage-workspace")
      ? h("div", { class: "form-actions" }, exportButton, eraseButton)
      : null,
    dialog,
  );
}

export const contactsScreen: Screen = {
  path: "contacts",
  title: "Contacts",
  async render(ctx, params) {
    // The inbox's visitor panel links to `#/contacts/of/<conversation>`.
    if (params[0] === "of" && params[1]) {
      const { data } = await ctx.client.conversationContact.query({ conversation: params[1] });
      return await contactView(ctx, String(data.id));
    }
    if (params[0]) return await contactView(ctx, params[0]);
    const error = errorLine();
    const q = h("input", {
      name: "q",
      type: "search",
      placeholder: "Name or e-mail",
      maxlength: 200,
    });
    const list = keysetList({
      fetch: (cursor) =>
        ctx.client.listContacts.query({
          ...(q.value.trim() ? { q: q.value.trim() } : {}),
          ...(cursor ? { cursor } : {}),
        }),
      row,
      describe: (shown, more) =>
        shown === 0
          ? "No contacts found."
          : `${shown} contact${shown === 1 ? "" : "s"} shown${more ? "; more below" : ""}.`,
      failed: (err) => error.textContent = failureText(err),
      loaded: () => error.textContent = "",
    });
    const search = h(
      "form",
      {
        role: "search",
        "aria-label": "Search contacts",
        onSubmit: (e) => {
          e.preventDefault();
          void list.reload();
        },
      },
      field("Search", q),
      h("button", { type: "submit", class: "primary" }, "Search"),
    );
    await list.reload();
    ctx.dataReady();
    return h(
      "section",
      { class: "contacts" },
      pageHeader("Contacts"),
      search,
      error,
      list.summary,
      h(
        "table",
        { class: "table" },
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            ...["Name", "E-mail", "Bot", "Conversations", "Rating", "Last seen", "Country"].map((
              t,
            ) => h("th", null, t)),
          ),
        ),
        list.body,
      ),
      list.more,
      h("h2", null, "Retention"),
      await retentionForm(ctx),
    );
  },
};
