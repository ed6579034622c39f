/// <reference lib="dom" />
/**
 * Audit log (owners and administrators): who did what, when, from which
 * address, on which record, newest first with "Load more" (the server's
 * keyset cursor), filtered by person, action and date, and the filtered log
 * saved as CSV. Every value (a member's name, a bot key, details) is shown
 * as text: the element builder makes text nodes, never markup.
 */
import { h } from "../../../inbox/src/dom.ts";
import {
  type AuditFilter,
  type DashboardOutputs,
  fetchAuditLogCsv,
} from "../../../clients/dashboard_client.ts";
import { AUDIT_ACTIONS } from "../../../domain/audit/audit_actions.ts";
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

type Row = DashboardOutputs["listAuditLog"]["data"][number];

const PER_PAGE = "50";

function select(name: string, options: [string, string][], value: string | undefined) {
  return h(
    "select",
    { name },
    options.map(([v, label]) => h("option", { value: v, selected: v === (value ?? "") }, label)),
  );
}

/** Details as `key: value` pairs, one line of text. */
function detailsText(details: Row["details"]): string {
  return Object.entries(details).map(([k, v]) =>
    `${k}: ${Array.isArray(v) ? v.join(", ") : typeof v === "object" ? JSON.stringify(v) : v}`
  ).join("; ");
}

function row(r: Row): HTMLElement {
  return h(
    "tr",
    { "data-audit": String(r.id), "data-action": r.action },
    h("td", null, formatDate(r.occurred_at)),
    h(
      "td",
      { "data-label": "Who" },
      r.actor.label,
      r.actor.token_id === null ? null : h("div", { class: "muted" }, `token ${r.actor.token_id}`),
    ),
    h("td", { "data-label": "Address" }, r.ip ?? "—"),
    h("td", { "data-label": "Action" }, h("code", null, r.action)),
    h("td", { "data-label": "Record" }, r.target ? `${r.target.type} ${r.target.id}` : "—"),
    h("td", { "data-label": "Details", class: "preview-cell" }, detailsText(r.details)),
  );
}

async function filterForm(
  ctx: ScreenContext,
  onApply: (f: AuditFilter) => void,
  onExport: (f: AuditFilter) => Promise<void>,
): Promise<HTMLFormElement> {
  const team = await ctx.client.team.query({});
  const person = select("person", [
    ["", "Anyone"],
    ...team.members.map((m) => [String(m.id), m.name] as [string, string]),
  ], undefined);
  const action = select("action", [
    ["", "Any action"],
    ...AUDIT_ACTIONS.map((a) => [a, a] as [string, string]),
  ], undefined);
  const from = h("input", { name: "from", type: "date" });
  const to = h("input", { name: "to", type: "date" });
  const read = (): AuditFilter => {
    const out: Record<string, string> = {};
    for (const el of [person, action, from, to]) if (el.value) out[el.name] = el.value;
    return out as AuditFilter;
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
      class: "form-grid audit-filters",
      role: "search",
      "aria-label": "Filter the audit log",
      onSubmit: (e) => {
        e.preventDefault();
        onApply(read());
      },
    },
    field("Person", person),
    field("Action", action),
    field("From", from),
    field("To", to),
    h(
      "div",
      { class: "form-actions wide" },
      h("button", { type: "submit", class: "primary" }, "Filter"),
      h("button", {
        type: "button",
        onClick: () => {
          for (const el of [person, action, from, to]) el.value = "";
          onApply({});
        },
      }, "Clear"),
      exportButton,
    ),
  );
  return form;
}

export const auditLogScreen: Screen = {
  path: "audit-log",
  title: "Audit log",
  permission: "manage-workspace",
  async render(ctx) {
    const page = h("section", { class: "audit-log" }, pageHeader("Audit log"));
    const error = errorLine();
    let filter: AuditFilter = {};
    const list = keysetList({
      fetch: (cursor) =>
        ctx.client.listAuditLog.query({
          ...filter,
          per_page: PER_PAGE,
          ...(cursor ? { cursor } : {}),
        }),
      row,
      describe: (shown, more) =>
        shown === 0
          ? "Nothing recorded matches."
          : `${shown} entr${shown === 1 ? "y" : "ies"} shown${more ? "; more below" : ""}.`,
      failed: (err) => error.textContent = showFieldErrors(form, err),
      loaded: () => error.textContent = "",
    });
    const form = await filterForm(
      ctx,
      (f) => {
        filter = f;
        void list.reload();
      },
      async (f) => {
        ctx.notify("Preparing the export…");
        const res = await fetchAuditLogCsv(
          { baseUrl: location.origin, token: () => ctx.session.token },
          f,
        );
        if (!res.ok) {
          error.textContent = await exportFailureText(res);
          ctx.notify("");
          return;
        }
        ctx.notify(`Saved ${await saveCsv(res, "audit-log.csv")}.`);
      },
    );
    await list.reload();
    ctx.dataReady();
    page.append(
      h(
        "p",
        { class: "muted" },
        "Security-relevant changes to this workspace: who made them, when and from where. " +
          "Entries are kept for a limited time (one year unless the operator set otherwise).",
      ),
      form,
      error,
      list.summary,
      h(
        "div",
        { class: "table-wrap" },
        h(
          "table",
          { class: "list audit-list" },
          h(
            "thead",
            null,
            h(
              "tr",
              null,
              ["When", "Who", "Address", "Action", "Record", "Details"].map((t) =>
                h("th", null, t)
              ),
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
