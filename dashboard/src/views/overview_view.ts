/// <reference lib="dom" />
/**
 * The overview: this month's usage against the plan (messages as a bar, bots,
 * seats), the month's counters, and the two 30-day charts. Both calls go out
 * together; the shell's performance marks time its first render (browser test).
 */
import { h } from "../../../inbox/src/dom.ts";
import type { DashboardOutputs } from "../../../clients/dashboard_client.ts";
import type { Screen } from "../screen.ts";
import { stackedBarChart } from "../chart.ts";
import { formatNumber, pageHeader } from "../ui.ts";

type Overview = DashboardOutputs["overview"];

function meter(label: string, used: number, limit: number | null, key: string): HTMLElement {
  const percent = limit === null ? null : limit === 0 ? 100 : Math.min(100, (used / limit) * 100);
  const bar = h("div", { class: "meter-bar" });
  const fill = h("div", { class: "meter-fill" });
  // A width through CSSOM, not a style attribute: the page's policy has no inline style.
  fill.style.width = `${percent ?? 0}%`;
  if (percent !== null && percent >= 90) fill.classList.add("high");
  bar.append(fill);
  return h(
    "div",
    { class: "meter", "data-usage": key },
    h(
      "div",
      { class: "meter-label" },
      h("span", null, label),
      h(
        "span",
        { class: "meter-figure" },
        limit === null
          ? `${formatNumber(used)} (unlimited)`
          : `${formatNumber(used)} of ${formatNumber(limit)}`,
      ),
    ),
    limit === null ? null : h("div", {
      role: "progressbar",
      "aria-label": label,
      "aria-valuemin": 0,
      "aria-valuemax": limit,
      "aria-valuenow": used,
    }, bar),
  );
}

function counter(label: string, value: string, key: string): HTMLElement {
  return h(
    "div",
    { class: "counter", "data-counter": key },
    h("span", { class: "counter-value" }, value),
    h("span", { class: "counter-label" }, label),
  );
}

function counters(o: Overview): HTMLElement {
  const m = o.month;
  const accepted = m.suggestions.reduce((a, s) => a + s.inserted + s.edited, 0);
  const suggested = m.suggestions.reduce((a, s) => a + s.suggested, 0);
  const revenue = m.revenue.length
    ? m.revenue.map((r) =>
      new Intl.NumberFormat(undefined, { style: "currency", currency: r.currency }).format(r.amount)
    ).join(" + ")
    : "—";
  return h(
    "div",
    { class: "counters" },
    counter("Conversations", formatNumber(m.conversations), "conversations"),
    counter("Visitor messages", formatNumber(m.messages.visitor_messages), "visitor"),
    counter("AI replies", formatNumber(m.messages.ai_replies), "ai"),
    counter("Human replies", formatNumber(m.messages.human_replies), "human"),
    counter("Tokens", formatNumber(m.tokens), "tokens"),
    counter(
      `AI cost (${o.cost_currency})`,
      new Intl.NumberFormat(undefined, {
        style: "currency",
        currency: o.cost_currency,
        minimumFractionDigits: 2,
        maximumFractionDigits: 4,
      }).format(m.cost),
      "cost",
    ),
    counter(
      "Suggestions accepted",
      suggested
        ? `${accepted} of ${suggested} (${Math.round((accepted / suggested) * 100)}%)`
        : "—",
      "suggestions",
    ),
    counter("Attributed revenue", revenue, "revenue"),
  );
}

type Series = DashboardOutputs["series"];

function overviewBody(o: Overview, s: Series): HTMLElement[] {
  return [
    pageHeader("Overview", h("span", { class: "muted" }, `Plan: ${o.plan}`)),
    h(
      "div",
      { class: "card usage" },
      h("h2", null, "This month against your plan"),
      meter("Messages", o.usage.messages_used, o.usage.message_limit, "messages"),
      meter("Bots", o.usage.chatbots, o.usage.chatbot_limit, "bots"),
      meter("Seats", o.usage.seats, o.usage.agent_seats, "seats"),
    ),
    counters(o),
    h(
      "div",
      { class: "charts" },
      stackedBarChart("Messages per day, last 30 days", s.days, [
        { label: "Visitor", tone: "tone-visitor", values: s.messages.visitor },
        { label: "AI", tone: "tone-ai", values: s.messages.ai },
        { label: "Human", tone: "tone-human", values: s.messages.human },
      ]),
      stackedBarChart("Conversations resolved, last 30 days", s.days, [
        { label: "By the AI", tone: "tone-ai", values: s.resolved.ai },
        { label: "By a human", tone: "tone-human", values: s.resolved.human },
      ]),
    ),
  ];
}

/** Figures that changed are read again this long after the first change (a reply is a burst). */
const SETTLE_MS = 1500;
/** Without the realtime channel the overview is read again this often. */
const POLL_MS = 30_000;

export const overviewScreen: Screen = {
  path: "overview",
  title: "Overview",
  async render(ctx) {
    const read = () => Promise.all([ctx.client.overview.query({}), ctx.client.series.query({})]);
    const [o, s] = await read();
    // What follows is the render proper, measured apart from the calls (docs/BENCHMARKS.md).
    ctx.dataReady();
    const view = h("section", { class: "overview" }, ...overviewBody(o, s));
    // Live: a visitor's message or conversation, or a resolution, says the figures changed
    // (stats.changed on the dashboard channel); without the channel, a slow poll.
    let timer: ReturnType<typeof setTimeout> | undefined;
    let soon = false; // a read is due within SETTLE_MS: later changes join it
    let left = false;
    const refresh = async () => {
      soon = false;
      try {
        const [o2, s2] = await read();
        if (!left) view.replaceChildren(...overviewBody(o2, s2));
      } catch { /* kept as shown; the next change or poll tries again */ }
      if (!left) later(ctx.live.live ? null : POLL_MS);
    };
    const later = (ms: number | null) => {
      clearTimeout(timer);
      soon = ms === SETTLE_MS;
      if (ms !== null && !left) timer = setTimeout(() => void refresh(), ms);
    };
    const stop = ctx.live.listen((event) => {
      if (event === "stats.changed" && !soon) later(SETTLE_MS);
    });
    const unwatch = ctx.live.onLiveChange((live) => later(live ? SETTLE_MS : POLL_MS));
    if (!ctx.live.live) later(POLL_MS);
    ctx.onLeave(() => {
      left = true;
      clearTimeout(timer);
      stop();
      unwatch();
    });
    return view;
  },
};
