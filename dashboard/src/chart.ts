/// <reference lib="dom" />
/**
 * A stacked bar chart as SVG, drawn by us: one bar per day, one colour per
 * series, a few y gridlines, a day label every week, a legend, and each bar's
 * figures in its `<title>` (a tooltip, read by screen readers). No library:
 * the two charts need nothing more, and this is a few hundred bytes gzipped.
 */
import { h } from "../../inbox/src/dom.ts";

const SVG = "http://www.w3.org/2000/svg";
const W = 600;
const H = 180;
const PAD = { left: 32, right: 6, top: 8, bottom: 22 };

export interface ChartSeries {
  label: string;
  /** A CSS class naming the series' colour (dashboard.css). */
  tone: string;
  values: number[];
}

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
  text?: string,
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** A step of 1, 2 or 5 × 10^n that puts about four gridlines under `max`. */
function gridStep(max: number): number {
  const raw = Math.max(1, max / 4);
  const p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw)!;
}

export function stackedBarChart(
  title: string,
  days: string[],
  series: ChartSeries[],
): HTMLElement {
  const totals = days.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const step = gridStep(Math.max(...totals, 1));
  const top = Math.max(step, Math.ceil(Math.max(...totals, 1) / step) * step);
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(days.length, 1);
  const y = (v: number) => PAD.top + plotH - (v / top) * plotH;
  const root = svg("svg", {
    viewBox: `0 0 ${W} ${H}`,
    role: "img",
    "aria-label": `${title}: ${
      series.map((s) => `${s.label} ${s.values.reduce((a, b) => a + b, 0)}`).join(", ")
    } in ${days.length} days`,
    class: "chart",
  });
  for (let v = 0; v <= top; v += step) {
    root.append(
      svg("line", { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), class: "grid" }),
      svg("text", { x: PAD.left - 4, y: y(v) + 4, class: "axis", "text-anchor": "end" }, String(v)),
    );
  }
  days.forEach((day, i) => {
    const x = PAD.left + i * slot + slot * 0.15;
    const g = svg("g", { class: "bar", "data-day": day });
    let base = 0;
    for (const s of series) {
      const v = s.values[i] ?? 0;
      if (v > 0) {
        g.append(svg("rect", {
          x,
          y: y(base + v),
          width: slot * 0.7,
          height: Math.max(1, y(base) - y(base + v)),
          class: s.tone,
        }));
      }
      base += v;
    }
    g.append(
      svg("title", {}, `${day}: ${series.map((s) => `${s.label} ${s.values[i] ?? 0}`).join(", ")}`),
    );
    root.append(g);
    if ((days.length - 1 - i) % 7 === 0) {
      root.append(
        svg(
          "text",
          { x: x + slot * 0.35, y: H - 6, class: "axis", "text-anchor": "middle" },
          day.slice(5),
        ),
      );
    }
  });
  const legend = h(
    "ul",
    { class: "legend" },
    series.map((s) =>
      h("li", null, h("span", { class: `swatch ${s.tone}`, "aria-hidden": "true" }), s.label)
    ),
  );
  const figure = h("figure", { class: "chart-card" }, h("figcaption", null, title));
  figure.append(root, legend);
  return figure;
}
