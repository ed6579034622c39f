/// <reference lib="dom" />
/**
 * Reports: a period (presets or custom days) in a time zone, filtered by bot,
 * agent and tag; each figure beside the previous period's with its change;
 * the series as charts drawn like the overview's; the busiest hours; per
 * agent, bot and tag tables, sortable and saved as CSV. docs/reports.md
 * defines every number shown.
 */
import { h } from "../../../inbox/src/dom.ts";
import {
  type DashboardOutputs,
  fetchReportCsv,
  type ReportQuery,
} from "../../../clients/dashboard_client.ts";
import type { Screen, ScreenContext } from "../screen.ts";
import { stackedBarChart } from "../chart.ts";
import { errorLine, field, formatNumber, pageHeader, showFieldErrors } from "../ui.ts";
import { type Column, heatMap, sortableTable } from "./report_tables.ts";

type Report = DashboardOutputs["report"];
type Figures = Report["figures"];

const PRESETS: [string, string][] = [
  ["today", "Today"],
  ["7", "Last 7 days"],
  ["30", "Last 30 days"],
  ["90", "Last 90 days"],
  ["month", "This month"],
  ["last-month", "Last month"],
  ["custom", "Custom"],
];

const DAY_MS = 86_400_000;
const iso = (t: number) => new Date(t).toISOString().slice(0, 10);

/** Today's date in `timeZone`, as a UTC-midnight timestamp. */
function today(timeZone: string): number {
  const day = new Intl.DateTimeFormat("en-CA", { timeZone }).format(new Date());
  return Date.parse(`${day}T00:00:00Z`);
}

/** The days a preset covers, ending today in `timeZone`. */
export function presetRange(preset: string, timeZone: string): { from: string; to: string } {
  const t = today(timeZone);
  const d = new Date(t);
  if (preset === "month") {
    return { from: iso(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)), to: iso(t) };
  }
  if (preset === "last-month") {
    const first = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1);
    return { from: iso(first), to: iso(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) - DAY_MS) };
  }
  const days = preset === "today" ? 1 : Number(preset) || 30;
  return { from: iso(t - (days - 1) * DAY_MS), to: iso(t) };
}

const duration = (s: number | null) => {
  if (s === null) return "—";
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60 ? `${s % 60} s` : ""}`.trim();
  const m = Math.round(s / 60);
  return `${Math.floor(m / 60)} h ${m % 60} min`;
};
const percent = (v: number | null) => v === null ? "—" : `${Math.round(v * 1000) / 10}%`;

interface FigureDef {
  key: string;
  label: string;
  value: (f: Figures) => number | null;
  show: (v: number | null) => string;
  /** A rise is bad (waiting times), so the change reads as worse. */
  lowerIsBetter?: boolean;
}

const count = (v: number | null) => v === null ? "—" : formatNumber(v);

const FIGURES: FigureDef[] = [
  { key: "conversations", label: "Conversations", value: (f) => f.conversations, show: count },
  {
    key: "visitor_messages",
    label: "Visitor messages",
    value: (f) => f.visitor_messages,
    show: count,
  },
  { key: "ai_replies", label: "AI replies", value: (f) => f.ai_replies, show: count },
  { key: "human_replies", label: "Human replies", value: (f) => f.human_replies, show: count },
  {
    key: "ai_resolution_rate",
    label: "AI resolution rate",
    value: (f) => f.ai_resolution_rate,
    show: percent,
  },
  { key: "handoff_rate", label: "Handoff rate", value: (f) => f.handoff_rate, show: percent },
  {
    key: "first_response_median",
    label: "First response (median)",
    value: (f) => f.first_response.median_seconds,
    show: duration,
    lowerIsBetter: true,
  },
  {
    key: "first_response_p90",
    label: "First response (90th pct.)",
    value: (f) => f.first_response.p90_seconds,
    show: duration,
    lowerIsBetter: true,
  },
  {
    key: "resolution_median",
    label: "Resolution time (median)",
    value: (f) => f.resolution_time.median_seconds,
    show: duration,
    lowerIsBetter: true,
  },
  {
    key: "resolution_p90",
    label: "Resolution time (90th pct.)",
    value: (f) => f.resolution_time.p90_seconds,
    show: duration,
    lowerIsBetter: true,
  },
  { key: "ratings", label: "Ratings given", value: (f) => f.ratings.count, show: count },
  {
    key: "good_share",
    label: "Good ratings (4-5)",
    value: (f) => f.ratings.good_share,
    show: percent,
  },
  { key: "rating_rate", label: "Rating rate", value: (f) => f.ratings.rating_rate, show: percent },
  {
    key: "recommendations_shown",
    label: "Products shown",
    value: (f) => f.recommendations.shown,
    show: count,
  },
  {
    key: "recommendations_clicked",
    label: "Products clicked",
    value: (f) => f.recommendations.clicked,
    show: count,
  },
  {
    key: "suggestions_accepted",
    label: "Suggestions accepted",
    value: (f) => f.suggestions.accepted,
    show: count,
  },
];

function change(d: FigureDef, now: number | null, before: number | null): HTMLElement {
  if (now === null || before === null) return h("span", { class: "change" }, "no comparison");
  const diff = now - before;
  if (diff === 0) return h("span", { class: "change" }, "no change");
  const better = d.lowerIsBetter ? diff < 0 : diff > 0;
  const shown = d.show === percent
    ? `${Math.round(diff * 1000) / 10} pts`
    : d.show === duration
    ? duration(Math.abs(diff))
    : formatNumber(Math.abs(diff));
  const text = d.show === percent
    ? `${diff > 0 ? "+" : ""}${shown}`
    : `${diff > 0 ? "+" : "−"}${shown}`;
  return h("span", { class: `change ${better ? "up" : "down"}` }, `${text} vs previous`);
}

function figureCards(r: Report): HTMLElement {
  const revenue =
    r.figures.revenue.map((x) =>
      new Intl.NumberFormat(undefined, { style: "currency", currency: x.currency }).format(x.amount)
    ).join(" + ") || "—";
  return h(
    "div",
    { class: "counters report-figures" },
    FIGURES.map((d) => {
      const v = d.value(r.figures);
      return h(
        "div",
        { class: "counter", "data-figure": d.key },
        h("span", { class: "counter-value" }, d.show(v)),
        h("span", { class: "counter-label" }, d.label),
        change(d, v, d.value(r.previous)),
      );
    }),
    h(
      "div",
      { class: "counter", "data-figure": "revenue" },
      h("span", { class: "counter-value" }, revenue),
      h("span", { class: "counter-label" }, "Attributed revenue"),
    ),
  );
}

const num = (v: unknown) => v === null || v === undefined ? "—" : formatNumber(Number(v));
const secs = (v: unknown) => duration(v as number | null);
const pct = (v: unknown) => percent(v as number | null);

type Row = Record<string, unknown>;
const AGENT_COLUMNS: Column<Row>[] = [
  { key: "name", label: "Agent" },
  { key: "conversations", label: "Conversations", show: num },
  { key: "first_response_median_seconds", label: "First response (median)", show: secs },
  { key: "resolution_median_seconds", label: "Resolution (median)", show: secs },
  { key: "ratings", label: "Ratings", show: num },
  { key: "good_share", label: "Good ratings", show: pct },
];
const BOT_COLUMNS: Column<Row>[] = [
  { key: "name", label: "Bot" },
  { key: "conversations", label: "Conversations", show: num },
  { key: "ai_resolution_rate", label: "AI resolution rate", show: pct },
  { key: "ratings", label: "Ratings", show: num },
  { key: "good_share", label: "Good ratings", show: pct },
  { key: "tokens", label: "Tokens", show: num },
  { key: "cost", label: "Cost", show: (v) => Number(v).toFixed(2) },
];
const TAG_COLUMNS: Column<Row>[] = [
  { key: "name", label: "Tag" },
  { key: "conversations", label: "Conversations", show: num },
  { key: "resolved", label: "Resolved", show: num },
  { key: "resolution_median_seconds", label: "Resolution (median)", show: secs },
];

async function saveCsv(res: Response): Promise<string> {
  const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ??
    "report.csv";
  const url = URL.createObjectURL(await res.blob());
  const a = h("a", { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return name;
}

function breakdown(
  ctx: ScreenContext,
  query: ReportQuery,
  title: string,
  table: "agents" | "bots" | "tags",
  columns: Column<Row>[],
  rows: Row[],
): HTMLElement {
  const download = h("button", {
    type: "button",
    "aria-label": `Download ${title.toLowerCase()} as CSV`,
    onClick: async () => {
      const res = await fetchReportCsv(
        { baseUrl: location.origin, token: () => ctx.session.token },
        query,
        table,
      );
      ctx.notify(
        res.ok ? `Saved ${await saveCsv(res)}.` : `The export failed (HTTP ${res.status}).`,
      );
    },
  }, "CSV");
  return h(
    "section",
    { class: "card report-breakdown" },
    h("div", { class: "report-breakdown-head" }, h("h2", null, title), download),
    sortableTable(table, columns, rows),
  );
}

function reportBody(ctx: ScreenContext, query: ReportQuery, r: Report): HTMLElement[] {
  const s = r.series;
  const unit = r.period.granularity === "hour" ? "hour" : "day";
  return [
    h(
      "p",
      { class: "muted", role: "status", "data-period": `${r.period.from}/${r.period.to}` },
      `${r.period.from} to ${r.period.to} (${r.period.time_zone}), compared with ` +
        `${r.previous_period.from} to ${r.previous_period.to}.`,
    ),
    figureCards(r),
    h(
      "div",
      { class: "charts report-charts" },
      stackedBarChart(`Messages per ${unit}`, s.buckets, [
        { label: "Visitor", tone: "tone-visitor", values: s.visitor_messages },
        { label: "AI", tone: "tone-ai", values: s.ai_replies },
        { label: "Human", tone: "tone-human", values: s.human_replies },
      ]),
      stackedBarChart(`Conversations resolved per ${unit}`, s.buckets, [
        { label: "By the AI", tone: "tone-ai", values: s.resolved_by_ai },
        { label: "By a human", tone: "tone-human", values: s.resolved_by_human },
      ]),
      stackedBarChart(`Conversations started per ${unit}`, s.buckets, [
        { label: "Started", tone: "tone-visitor", values: s.conversations },
      ]),
    ),
    h(
      "section",
      { class: "card" },
      h("h2", null, "Busiest hours"),
      heatMap(r.busiest_hours, r.period.time_zone),
    ),
    breakdown(ctx, query, "Agents", "agents", AGENT_COLUMNS, r.agents),
    breakdown(ctx, query, "Bots", "bots", BOT_COLUMNS, r.bots),
    breakdown(ctx, query, "Tags", "tags", TAG_COLUMNS, r.tags),
  ];
}

function select(name: string, options: [string, string][]): HTMLSelectElement {
  return h("select", { name }, options.map(([v, label]) => h("option", { value: v }, label)));
}

export const reportsScreen: Screen = {
  path: "reports",
  title: "Reports",
  async render(ctx) {
    const [bots, tags, team] = await Promise.all([
      ctx.client.listBots.query({}),
      ctx.client.listTags.query({}),
      ctx.client.team.query({}),
    ]);
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
    const preset = select("preset", PRESETS);
    preset.value = "30";
    const initial = presetRange("30", zone);
    const from = h("input", { name: "from", type: "date", value: initial.from, required: true });
    const to = h("input", { name: "to", type: "date", value: initial.to, required: true });
    const timeZone = h("input", { name: "time_zone", value: zone, maxlength: 64, required: true });
    const bot = select("bot", [
      ["", "All bots"],
      ...bots.data.map((b) => [b.public_key, b.name] as [string, string]),
    ]);
    const agent = select("agent", [
      ["", "All agents"],
      ...team.members.map((m) => [String(m.id), m.name] as [string, string]),
    ]);
    const tag = select("tag", [
      ["", "All tags"],
      ...tags.data.map((t) => [String(t.id), t.name] as [string, string]),
    ]);
    const body = h("div", { class: "report-body" });
    const error = errorLine();
    let seq = 0;
    const read = (): ReportQuery => {
      const q: Record<string, string> = {
        from: from.value,
        to: to.value,
        time_zone: timeZone.value.trim(),
      };
      for (const el of [bot, agent, tag]) if (el.value) q[el.name] = el.value;
      return q as ReportQuery;
    };
    const load = async () => {
      const mine = ++seq;
      const query = read();
      try {
        const r = await ctx.client.report.query(query);
        if (mine !== seq) return;
        error.textContent = "";
        for (const slot of form.querySelectorAll<HTMLElement>("[data-error-for]")) {
          slot.textContent = "";
        }
        body.replaceChildren(...reportBody(ctx, query, r));
      } catch (err) {
        if (mine !== seq) return;
        error.textContent = showFieldErrors(form, err);
      }
    };
    preset.addEventListener("change", () => {
      if (preset.value !== "custom") {
        const range = presetRange(preset.value, timeZone.value.trim() || "UTC");
        from.value = range.from;
        to.value = range.to;
        void load();
      }
    });
    for (const el of [from, to]) el.addEventListener("change", () => (preset.value = "custom"));
    for (const el of [bot, agent, tag]) el.addEventListener("change", () => void load());
    const form = h(
      "form",
      {
        class: "filters report-filters",
        role: "search",
        "aria-label": "Report period and filters",
        onSubmit: (e: Event) => {
          e.preventDefault();
          void load();
        },
      },
      field("Period", preset),
      field("From", from),
      field("To", to),
      field("Time zone", timeZone),
      field("Bot", bot),
      field("Agent", agent),
      field("Tag", tag),
      h("button", { type: "submit" }, "Show"),
    );
    await load();
    ctx.dataReady();
    return h("section", { class: "reports" }, pageHeader("Reports"), form, error, body);
  },
};
