/// <reference lib="dom" />
/**
 * The Reports screen's pieces that are tables: a sortable breakdown (a
 * header button per column sorts by it, `aria-sort` says how) and the
 * weekday × hour heat map, whose cells hold their counts as text.
 */
import { h } from "../../../inbox/src/dom.ts";

export interface Column<R> {
  key: keyof R & string;
  label: string;
  /** How a value reads (numbers, seconds, shares); text as it is. */
  show?: (v: R[keyof R]) => string;
}

/** A table sorted by a clicked column (descending first, again for ascending). */
export function sortableTable<R extends Record<string, unknown>>(
  name: string,
  columns: Column<R>[],
  rows: R[],
): HTMLElement {
  let sortKey: string | null = null;
  let descending = true;
  const body = h("tbody");
  const heads = columns.map((c) =>
    h(
      "th",
      { scope: "col", "data-key": c.key },
      h("button", {
        type: "button",
        class: "sort",
        onClick: () => {
          descending = sortKey === c.key ? !descending : true;
          sortKey = c.key;
          draw();
        },
      }, c.label),
    )
  );
  const value = (r: R, k: string) => r[k];
  const draw = () => {
    const sorted = [...rows];
    if (sortKey) {
      const k = sortKey;
      sorted.sort((a, b) => {
        const x = value(a, k), y = value(b, k);
        if (x === y) return 0;
        if (x === null || x === undefined) return 1;
        if (y === null || y === undefined) return -1;
        const order = typeof x === "number" && typeof y === "number"
          ? x - y
          : String(x).localeCompare(String(y));
        return descending ? -order : order;
      });
    }
    heads.forEach((th, i) => {
      const k = columns[i]!.key;
      if (k === sortKey) th.setAttribute("aria-sort", descending ? "descending" : "ascending");
      else th.removeAttribute("aria-sort");
    });
    body.replaceChildren(
      ...(sorted.length
        ? sorted.map((r) =>
          h(
            "tr",
            null,
            columns.map((c) =>
              h(
                "td",
                { "data-label": c.label },
                c.show ? c.show(r[c.key]) : String(r[c.key] ?? "—"),
              )
            ),
          )
        )
        : [h("tr", null, h("td", { colspan: columns.length, class: "muted" }, "Nothing yet."))]),
    );
  };
  draw();
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "list report-table", "data-table": name },
      h("thead", null, h("tr", null, heads)),
      body,
    ),
  );
}

const DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/** Visitor messages per weekday × hour: a table, shaded in five steps by count. */
export function heatMap(grid: number[][], timeZone: string): HTMLElement {
  const max = Math.max(1, ...grid.flat());
  return h(
    "div",
    { class: "table-wrap heat-wrap" },
    h(
      "table",
      { class: "heat" },
      h("caption", null, `Visitor messages by weekday and hour (${timeZone})`),
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          h("th", { scope: "col" }, ""),
          Array.from({ length: 24 }, (_, hr) => h("th", { scope: "col" }, String(hr))),
        ),
      ),
      h(
        "tbody",
        null,
        grid.map((row, d) =>
          h(
            "tr",
            null,
            h("th", { scope: "row" }, DAYS[d]!),
            row.map((n, hr) =>
              h("td", {
                class: `heat-${n === 0 ? 0 : Math.ceil((n / max) * 4)}`,
                title: `${DAYS[d]} ${hr}:00: ${n}`,
              }, String(n))
            ),
          )
        ),
      ),
    ),
  );
}
