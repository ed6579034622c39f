/// <reference lib="dom" />
/**
 * Conversation history: every conversation of the workspace, filtered by bot,
 * state (the words of docs/vocabulary.md, "Waiting for a human" among them), agent, tag, start date and rating, searched over its messages' text,
 * newest started first with "Load more" (the server's keyset cursor), and the
 * filtered list exported as CSV. A row opens the read-only transcript
 * (`#/conversations/<id>`, history_transcript_view.ts). The filter is kept
 * while the app is open, so coming back from a transcript finds the same list.
 */
import { h } from "../../../inbox/src/dom.ts";
import {
  type DashboardOutputs,
  fetchConversationsCsv,
  type HistoryFilter,
} from "../../../clients/dashboard_client.ts";
import type { Screen, ScreenContext } from "../screen.ts";
import {
  errorLine,
  exportFailureText,
  field,
  formatDate,
  pageHeader,
  saveCsv,
  showFieldErrors,
} from "../ui.ts";
import { keysetList } from "../keyset_list.ts";
import { transcriptView } from "./history_transcript_view.ts";
import {
  conversationState,
  STATE_CODES,
  STATE_WORDS,
  stateWords,
} from "../../../domain/conversations/state_words.ts";

type Row = DashboardOutputs["listConversations"]["data"][number];

const PER_PAGE = "25";
let kept: HistoryFilter = {};

function select(name: string, options: [string, string][], value: string | undefined) {
  return h(
    "select",
    { name },
    options.map(([v, label]) => h("option", { value: v, selected: v === (value ?? "") }, label)),
  );
}

function tagChips(tags: Row["tags"]): HTMLElement {
  return h(
    "span",
    { class: "tag-chips" },
    tags.map((t) => {
      const swatch = h("span", { class: "swatch", "aria-hidden": "true" });
      swatch.style.background = t.color; // CSSOM, not a style attribute (the page's policy)
      return h("span", { class: "tag-chip" }, swatch, " ", t.name);
    }),
  );
}

function row(r: Row): HTMLElement {
  const who = r.visitor.name ?? r.visitor.email ?? r.visitor.id;
  return h(
    "tr",
    { "data-conversation": r.id },
    h("td", null, h("a", { href: `#/conversations/${r.id}` }, formatDate(r.started_at))),
    h("td", { "data-label": "Bot" }, r.bot.name),
    h(
      "td",
      null,
      who,
      r.visitor.email && r.visitor.name ? h("div", { class: "muted" }, r.visitor.email) : null,
    ),
    h(
      "td",
      null,
      h(
        "span",
        { class: `pill status-${r.status} state-${conversationState(r.status, r.handoff_state)}` },
        stateWords(r.status, r.handoff_state),
      ),
    ),
    h("td", { "data-label": "Agent" }, r.assigned_to?.name ?? "—"),
    h("td", { "data-label": "Tags" }, tagChips(r.tags)),
    h(
      "td",
      { "data-label": "Rating" },
      r.rating === null ? "—" : `${"★".repeat(r.rating)} ${r.rating}/5`,
    ),
    h("td", { "data-label": "Messages" }, String(r.messages)),
    h("td", { class: "preview-cell" }, r.preview ?? ""),
  );
}

async function filterForm(
  ctx: ScreenContext,
  onApply: (f: HistoryFilter) => void,
  onExport: (f: HistoryFilter) => Promise<void>,
): Promise<HTMLFormElement> {
  const [bots, tags, team] = await Promise.all([
    ctx.client.listBots.query({}),
    ctx.client.listTags.query({}),
    ctx.client.team.query({}),
  ]);
  const f = kept;
  const q = h("input", {
    name: "q",
    type: "search",
    value: f.q ?? "",
    placeholder: "Words from the messages",
    maxlength: 200,
  });
  const from = h("input", { name: "from", type: "date", value: f.from ?? "" });
  const to = h("input", { name: "to", type: "date", value: f.to ?? "" });
  const bot = select("bot", [
    ["", "All bots"],
    ...bots.data.map((b) => [b.public_key, b.name] as [string, string]),
  ], f.bot);
  const state = select("state", [
    ["", "Any state"],
    ...STATE_CODES.map((code) => [code, STATE_WORDS[code]] as [string, string]),
  ], f.state);
  const agent = select(
    "agent",
    [
      ["", "Anyone"],
      ["none", "Unassigned"],
      ...team.members.map((m) => [String(m.id), m.name] as [string, string]),
    ],
    f.agent,
  );
  const tag = select("tag", [
    ["", "Any tag"],
    ...tags.data.map((t) => [String(t.id), t.name] as [string, string]),
  ], f.tag);
  const rating = select(
    "rating",
    [
      ["", "Any rating"],
      ["rated", "Rated"],
      ["unrated", "Not rated"],
      ...["5", "4", "3", "2", "1"].map((n) => [n, `${n} of 5`] as [string, string]),
    ],
    f.rating,
  );
  const read = (): HistoryFilter => {
    const out: Record<string, string> = {};
    for (const el of [q, from, to, bot, state, agent, tag, rating]) {
      if (el.value.trim()) out[el.name] = el.value.trim();
    }
    return out as HistoryFilter;
  };
  const exportButton = h("button", {
    type: "button",
    onClick: async () => {
      exportButton.disabled = true;
      try {
        await onExport(read());
      } finally {
        exportButton.disabled = false;
      }
    },
  }, "Export CSV");
  const form: HTMLFormElement = h(
    "form",
    {
      class: "form-grid history-filters",
      role: "search",
      "aria-label": "Filter conversations",
      onSubmit: (e) => {
        e.preventDefault();
        onApply(read());
      },
    },
    h("div", { class: "wide" }, field("Search messages", q)),
    field("Bot", bot),
    field("State", state),
    field("Agent", agent),
    field("Tag", tag),
    field("Started from", from),
    field("Started to", to),
    field("Rating", rating),
    h(
      "div",
      { class: "form-actions wide" },
      h("button", { type: "submit", class: "primary" }, "Search"),
      h("button", {
        type: "button",
        onClick: () => {
          form.reset();
          for (const el of [q, from, to]) el.value = "";
          for (const el of [bot, state, agent, tag, rating]) el.value = "";
          onApply({});
        },
      }, "Clear"),
      ctx.can("manage-workspace") ? exportButton : null,
    ),
  );
  return form;
}

export const historyScreen: Screen = {
  path: "conversations",
  title: "Conversations",
  async render(ctx, params) {
    if (params[0]) return await transcriptView(ctx, params[0]);
    const page = h("section", { class: "history" }, pageHeader("Conversation history"));
    const error = errorLine();
    const list = keysetList({
      fetch: (cursor) =>
        ctx.client.listConversations.query({
          ...kept,
          per_page: PER_PAGE,
          ...(cursor ? { cursor } : {}),
        }),
      row,
      describe: (shown, more) =>
        shown === 0
          ? "No conversation matches."
          : `${shown} conversation${shown === 1 ? "" : "s"} shown${more ? "; more below" : ""}.`,
      failed: (err) => error.textContent = showFieldErrors(form, err),
      loaded: () => error.textContent = "",
    });
    const form = await filterForm(
      ctx,
      (f) => {
        kept = f;
        void list.reload();
      },
      async (f) => {
        kept = f;
        ctx.notify("Preparing the export…");
        const res = await fetchConversationsCsv(
          { baseUrl: location.origin, token: () => ctx.session.token },
          f,
        );
        if (!res.ok) {
          error.textContent = await exportFailureText(res);
          ctx.notify("");
          return;
        }
        ctx.notify(`Saved ${await saveCsv(res)}.`);
      },
    );
    await list.reload();
    ctx.dataReady();
    page.append(
      form,
      error,
      list.summary,
      h(
        "div",
        { class: "table-wrap" },
        h(
          "table",
          { class: "list history-list" },
          h(
            "thead",
            null,
            h(
              "tr",
              null,
              ["Started", "Bot", "Visitor", "State", "Agent", "Tags", "Rating", "Messages", "Text"]
                .map((t) => h("th", null, t)),
            ),
          ),
          list.body,
        ),
      ),
      list.more,
    );
    return page;
  },
};
