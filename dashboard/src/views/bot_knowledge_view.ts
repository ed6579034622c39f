/// <reference lib="dom" />
/**
 * A bot's knowledge (`#/bots/<key>/knowledge`): its sources with type, state
 * (a failed one with its reason), chunks, crawl progress and dates; a form to
 * add text, Q&A or a website; delete and retrain. While any source is
 * pending or processing the list is fetched again every 1.5 s (and stops
 * when all are settled or the screen is left), so progress shows without a
 * reload.
 */
import { h } from "../../../inbox/src/dom.ts";
import type { DashboardOutputs } from "../../../clients/dashboard_client.ts";
import type { ScreenContext } from "../screen.ts";
import {
  errorLine,
  failureText,
  field,
  formatDate,
  formatNumber,
  pageHeader,
  readOnlyNote,
  showFieldErrors,
} from "../ui.ts";
import { botTabs } from "./bot_tabs.ts";
import { tryItBox } from "./try_it_box.ts";

type Source = DashboardOutputs["listKnowledge"]["data"][number];

const POLL_MS = 1500;
const TYPE_LABEL: Record<string, string> = { text: "Text", qa: "Q&A", url: "Website" };
const STATE_LABEL: Record<string, string> = {
  pending: "Pending",
  processing: "Indexing",
  ready: "Ready",
  failed: "Failed",
};
const busy = (s: Source) => s.status === "pending" || s.status === "processing";

function progress(s: Source): string {
  if (s.type !== "url") return "";
  const found = s.pages_found ?? 0;
  const indexed = s.pages_indexed ?? 0;
  return found ? `${indexed} of ${found} pages indexed` : busy(s) ? "Looking for pages…" : "";
}

function sourceRow(ctx: ScreenContext, key: string, s: Source, reload: () => void) {
  const canManage = ctx.can("manage-content");
  const act = async (what: "retrain" | "delete") => {
    if (what === "delete" && !confirm(`Delete "${s.title}" and everything indexed from it?`)) {
      return;
    }
    try {
      if (what === "delete") {
        ctx.notify((await ctx.client.deleteKnowledge.mutate({ key, source: s.id })).message);
      } else {
        await ctx.client.retrainKnowledge.mutate({ key, source: s.id });
        ctx.notify(`"${s.title}" is being indexed again.`);
      }
      reload();
    } catch (err) {
      ctx.notify(failureText(err));
    }
  };
  const failedPages = s.type === "url" && s.status === "ready" &&
      (s.pages_found ?? 0) > (s.pages_indexed ?? 0)
    ? `${(s.pages_found ?? 0) - (s.pages_indexed ?? 0)} pages failed`
    : "";
  return h(
    "tr",
    { "data-source": s.id, "data-status": s.status },
    h(
      "td",
      null,
      h("span", { class: "source-title" }, s.title),
      s.source_url ? h("span", { class: "muted block" }, s.source_url) : null,
    ),
    h("td", null, TYPE_LABEL[s.type] ?? s.type),
    h(
      "td",
      null,
      h("span", { class: `pill ${s.status}`, "data-state": "" }, STATE_LABEL[s.status] ?? s.status),
      s.error ? h("span", { class: "field-error block", "data-reason": "" }, s.error) : null,
      progress(s) ? h("span", { class: "muted block", "data-progress": "" }, progress(s)) : null,
      failedPages ? h("span", { class: "muted block" }, failedPages) : null,
    ),
    h("td", { class: "num" }, formatNumber(s.chunk_count)),
    h(
      "td",
      null,
      h("span", { class: "block" }, `Added ${formatDate(s.created_at)}`),
      h("span", { class: "muted block" }, `Updated ${formatDate(s.updated_at)}`),
    ),
    h(
      "td",
      { class: "row-actions" },
      canManage
        ? [
          h("button", {
            type: "button",
            disabled: busy(s),
            onClick: () => void act("retrain"),
          }, "Retrain"),
          h("button", {
            type: "button",
            class: "danger",
            onClick: () => void act("delete"),
          }, "Delete"),
        ]
        : null,
    ),
  );
}

function addForm(ctx: ScreenContext, key: string, added: () => void): HTMLElement {
  const type = h(
    "select",
    { name: "type" },
    h("option", { value: "text" }, "Text"),
    h("option", { value: "qa" }, "Q&A"),
    h("option", { value: "url" }, "Website (crawled)"),
  );
  const title = h("input", { name: "title", maxlength: 200, placeholder: "Optional" });
  const content = h("textarea", { name: "content", rows: 6 });
  const question = h("input", { name: "question", maxlength: 2000 });
  const answer = h("textarea", { name: "answer", rows: 4 });
  const url = h("input", {
    name: "source_url",
    type: "url",
    placeholder: "https://example.com/help",
    maxlength: 2048,
  });
  const parts = {
    text: h("div", { class: "wide" }, field("Text", content)),
    qa: h("div", { class: "wide" }, field("Question", question), field("Answer", answer)),
    url: h(
      "div",
      { class: "wide" },
      field("Website address", url, "The site is crawled from here, within its own host."),
    ),
  };
  const show = () => {
    for (const [name, el] of Object.entries(parts)) el.hidden = name !== type.value;
  };
  type.addEventListener("change", show);
  show();
  const error = errorLine();
  const submit = h("button", { type: "submit", class: "primary" }, "Add source");
  const form: HTMLFormElement = h(
    "form",
    {
      class: "card add-source",
      onSubmit: async (e) => {
        e.preventDefault();
        submit.disabled = true;
        error.textContent = "";
        const kind = type.value as "text" | "qa" | "url";
        try {
          const base = { key, title: title.value || undefined };
          const r = await ctx.client.addKnowledge.mutate(
            kind === "text"
              ? { ...base, type: kind, content: content.value }
              : kind === "qa"
              ? { ...base, type: kind, question: question.value, answer: answer.value }
              : { ...base, type: kind, source_url: url.value },
          );
          ctx.notify(`"${r.data.title}" added; it is being indexed.`);
          for (const el of [title, content, question, answer, url]) el.value = "";
          added();
        } catch (err) {
          error.textContent = showFieldErrors(form, err);
        }
        submit.disabled = false;
      },
    },
    h("h2", null, "Add knowledge"),
    h(
      "div",
      { class: "form-grid" },
      field("Type", type),
      field("Title", title),
      ...Object.values(parts),
    ),
    error,
    h("div", { class: "form-actions" }, submit),
  );
  return form;
}

export async function botKnowledgeView(ctx: ScreenContext, key: string): Promise<HTMLElement> {
  const [{ data: bot }, first] = await Promise.all([
    ctx.client.showBot.query({ key }),
    ctx.client.listKnowledge.query({ key }),
  ]);
  const body = h("tbody");
  const empty = h("p", { class: "muted" }, "No knowledge yet: add a text, a Q&A or a website.");
  let timer: ReturnType<typeof setTimeout> | undefined;
  let left = false;
  ctx.onLeave(() => {
    left = true;
    clearTimeout(timer);
  });
  const show = (sources: Source[]) => {
    body.replaceChildren(...sources.map((s) => sourceRow(ctx, key, s, () => void load())));
    empty.hidden = sources.length > 0;
    clearTimeout(timer);
    if (!left && sources.some(busy)) timer = setTimeout(() => void load(), POLL_MS);
  };
  const load = async () => {
    try {
      show((await ctx.client.listKnowledge.query({ key })).data);
    } catch (err) {
      ctx.notify(failureText(err));
      if (!left) timer = setTimeout(() => void load(), POLL_MS * 4);
    }
  };
  show(first.data);
  const canManage = ctx.can("manage-content");
  return h(
    "section",
    { class: "bot knowledge" },
    pageHeader(bot.name),
    botTabs(key, bot.name, "knowledge"),
    canManage ? null : readOnlyNote(),
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { class: "list sources" },
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            ["Source", "Type", "State", "Chunks", "Dates", ""].map((t) => h("th", null, t)),
          ),
        ),
        body,
      ),
    ),
    empty,
    canManage ? addForm(ctx, key, () => void load()) : null,
    canManage ? tryItBox(ctx, key) : null,
  );
}
