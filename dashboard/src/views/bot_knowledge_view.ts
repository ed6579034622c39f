/// <reference lib="dom" />
/**
 * A bot's knowledge (`#/bots/<key>/knowledge`): its sources with type, state
 * (a failed one with its reason), chunks, crawl progress and dates; files
 * uploaded by drag and drop (file_upload_card.ts); a form to add text, Q&A or
 * a website; delete and retrain; for a website, what its last sync found,
 * when the next is due, its schedule and Sync now
 * (docs/portal-api.md#keeping-a-website-in-sync). Indexing and crawl
 * progress arrive live on the dashboard channel (`source.progress`: the row
 * changes in place, and the list is read again when a source settles); while
 * the channel is not live and a source is pending or processing, the list is
 * fetched every 1.5 s instead. Either way it shows without a reload.
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
import { correctionsCard } from "./bot_corrections_card.ts";
import { tryItBox } from "./try_it_box.ts";
import { fileUploadCard } from "./file_upload_card.ts";

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
  if (!found) return busy(s) ? "Looking for pages…" : "";
  const parts = [`${indexed} of ${found} pages indexed`];
  if (s.pages_failed) parts.push(`${s.pages_failed} failed`);
  if (s.pages_skipped) parts.push(`${s.pages_skipped} skipped (no new text)`);
  return parts.join(" · ");
}

const SCHEDULE_LABEL: Record<string, string> = {
  off: "Not kept in sync",
  daily: "Synced daily",
  weekly: "Synced weekly",
};

/** "Last sync: 1 added · 2 changed · 0 removed · 0 failed, <date>" (a website only). */
function lastSyncText(s: Source): string {
  const l = s.last_sync;
  if (!l) return "";
  const counts =
    `${l.added} added · ${l.changed} changed · ${l.removed} removed · ${l.failed} failed`;
  return `Last sync: ${counts}, ${formatDate(l.finished_at)}`;
}

function nextSyncText(s: Source): string {
  if (!s.sync_schedule) return "";
  const label = SCHEDULE_LABEL[s.sync_schedule] ?? s.sync_schedule;
  return s.next_sync_at ? `${label}; next ${formatDate(s.next_sync_at)}` : label;
}

/** A `source.progress` event (docs/realtime.md). */
interface ProgressEvent {
  source_id: number;
  status: string;
  done: boolean;
  pages_found: number | null;
  pages_indexed: number | null;
  pages_failed: number | null;
  pages_skipped: number | null;
  chunk_count: number;
  error: string | null;
}

function isProgress(data: unknown): data is ProgressEvent {
  return typeof data === "object" && data !== null &&
    typeof (data as ProgressEvent).source_id === "number" &&
    typeof (data as ProgressEvent).status === "string";
}

function sourceRow(ctx: ScreenContext, key: string, s: Source, reload: () => void) {
  const canManage = ctx.can("manage-content");
  const act = async (what: "retrain" | "delete" | "sync") => {
    if (what === "delete" && !confirm(`Delete "${s.title}" and everything indexed from it?`)) {
      return;
    }
    try {
      if (what === "delete") {
        ctx.notify((await ctx.client.deleteKnowledge.mutate({ key, source: s.id })).message);
      } else if (what === "sync") {
        await ctx.client.syncKnowledge.mutate({ key, source: s.id });
        ctx.notify(`"${s.title}" is being synced.`);
      } else {
        await ctx.client.retrainKnowledge.mutate({ key, source: s.id });
        ctx.notify(`"${s.title}" is being indexed again.`);
      }
      reload();
    } catch (err) {
      ctx.notify(failureText(err));
    }
  };
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
      lastSyncText(s)
        ? h("span", { class: "muted block", "data-last-sync": "" }, lastSyncText(s))
        : null,
      nextSyncText(s)
        ? h("span", { class: "muted block", "data-next-sync": "" }, nextSyncText(s))
        : null,
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
          s.type === "url"
            ? h("button", {
              type: "button",
              "data-action": "sync",
              disabled: busy(s),
              onClick: () => void act("sync"),
            }, "Sync now")
            : null,
          s.type === "url" ? scheduleSelect(ctx, key, s, reload) : null,
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

/** Off, daily or weekly: saved on change. */
function scheduleSelect(ctx: ScreenContext, key: string, s: Source, reload: () => void) {
  const select: HTMLSelectElement = h(
    "select",
    {
      name: "sync_schedule",
      "aria-label": `Keep "${s.title}" in sync`,
      onChange: async () => {
        const value = select.value as "off" | "daily" | "weekly";
        try {
          await ctx.client.setKnowledgeSchedule.mutate({
            key,
            source: s.id,
            sync_schedule: value,
          });
          ctx.notify(`"${s.title}": ${SCHEDULE_LABEL[value]!.toLowerCase()}.`);
          reload();
        } catch (err) {
          ctx.notify(failureText(err));
        }
      },
    },
    ...["off", "daily", "weekly"].map((v) =>
      h(
        "option",
        { value: v, selected: s.sync_schedule === v },
        {
          off: "Sync: off",
          daily: "Sync: daily",
          weekly: "Sync: weekly",
        }[v]!,
      )
    ),
  );
  return select;
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
  let sources: Source[] = first.data;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let left = false;
  const rowOf = (s: Source) => sourceRow(ctx, key, s, () => void load());
  const show = (list: Source[]) => {
    sources = list;
    body.replaceChildren(...list.map(rowOf));
    empty.hidden = list.length > 0;
    schedule();
  };
  /** Polls only while the channel is not live and something is moving. */
  const schedule = (ms = POLL_MS) => {
    clearTimeout(timer);
    if (!left && !ctx.live.live && sources.some(busy)) timer = setTimeout(() => void load(), ms);
  };
  let loading: Promise<void> | null = null;
  let stale = false;
  /**
   * Reads the list. A call while a read is under way asks for one more after
   * it (that read may predate what prompted the call); the promise settles
   * when the list is as fresh as the call.
   */
  const load = (): Promise<void> => {
    if (loading) {
      stale = true;
      return loading.then(() => loading ?? undefined);
    }
    loading = (async () => {
      try {
        show((await ctx.client.listKnowledge.query({ key })).data);
      } catch (err) {
        ctx.notify(failureText(err));
        schedule(POLL_MS * 4);
      }
    })().finally(() => {
      loading = null;
      if (stale && !left) {
        stale = false;
        void load();
      }
    });
    return loading;
  };
  /** Sources of the workspace's other bots, heard on the channel: not this list's. */
  const foreign = new Set<number>();
  /** A source's progress, changed in place; a settled one reads the list again. */
  const onProgress = async (p: ProgressEvent) => {
    const i = sources.findIndex((s) => s.id === p.source_id);
    if (i < 0) {
      // Just added here (its events may beat the list's read), or another bot's source.
      if (foreign.has(p.source_id)) return;
      await load();
      if (!sources.some((s) => s.id === p.source_id)) foreign.add(p.source_id);
      return;
    }
    if (p.done) return void load();
    const { source_id: _id, done: _done, ...fields } = p;
    const next = { ...sources[i]!, ...fields };
    sources = sources.with(i, next);
    body.children[i]?.replaceWith(rowOf(next));
  };
  const stopListening = ctx.live.listen((event, data) => {
    if (event === "source.progress" && isProgress(data)) void onProgress(data);
    // Added, retrained or deleted elsewhere (another tab, the portal API): read the list again.
    // ("indexed" follows the last progress event, which already read it.)
    else if (event === "source.changed" && (data as { action?: string })?.action !== "indexed") {
      void load();
    }
  });
  // Back on the channel: one read catches up on what was missed; off it, polling takes over.
  const stopWatching = ctx.live.onLiveChange((live) => {
    section.dataset.live = String(live);
    if (live) void load();
    else schedule();
  });
  ctx.onLeave(() => {
    left = true;
    clearTimeout(timer);
    stopListening();
    stopWatching();
  });
  show(first.data);
  const canManage = ctx.can("manage-content");
  const section: HTMLElement = h(
    "section",
    { class: "bot knowledge", "data-live": String(ctx.live.live) },
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
    correctionsCard(ctx, key),
    canManage ? fileUploadCard(ctx, key, () => void load()) : null,
    canManage ? addForm(ctx, key, () => void load()) : null,
    canManage ? tryItBox(ctx, key) : null,
  );
  return section;
}
