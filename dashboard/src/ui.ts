/// <reference lib="dom" />
/** Small pieces every screen uses: a page header, an error line, labelled fields. */
import { describeFailure } from "../../clients/dashboard_client.ts";
import { type Child, h } from "../../inbox/src/dom.ts";

export function pageHeader(title: string, ...actions: Child[]): HTMLElement {
  return h(
    "header",
    { class: "page-header" },
    h("h1", null, title),
    h("div", { class: "actions" }, ...actions),
  );
}

/** The sentence a failed call shows: the server's message, or its field errors. */
export function failureText(err: unknown): string {
  const f = describeFailure(err);
  return f.errors ? Object.values(f.errors).flat().join(" ") : f.message;
}

/** Field errors of a failed call keyed by field, to show beside each input. */
export function fieldErrors(err: unknown): Record<string, string[]> {
  return describeFailure(err).errors ?? {};
}

export function errorLine(): HTMLElement {
  return h("p", { class: "form-error", role: "alert" });
}

/** A labelled control, with a slot for its field error (`data-error-for`). */
export function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  const name = control.getAttribute("name") ?? "";
  return h(
    "label",
    { class: "field" },
    h("span", { class: "label" }, label),
    control,
    hint ? h("span", { class: "hint" }, hint) : null,
    h("span", { class: "field-error", "data-error-for": name }),
  );
}

/** Shows each field error beside its input; returns the errors no input took. */
export function showFieldErrors(form: HTMLElement, err: unknown): string {
  for (const slot of form.querySelectorAll<HTMLElement>("[data-error-for]")) slot.textContent = "";
  const errors = fieldErrors(err);
  const rest: string[] = [];
  for (const [name, messages] of Object.entries(errors)) {
    const slot = form.querySelector<HTMLElement>(`[data-error-for="${CSS.escape(name)}"]`);
    if (slot) slot.textContent = messages.join(" ");
    else rest.push(...messages);
  }
  return Object.keys(errors).length ? rest.join(" ") : failureText(err);
}

export function formatNumber(n: number): string {
  return new Intl.NumberFormat().format(n);
}

export function formatDate(iso: string | null): string {
  if (!iso) return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** The read-only note a viewer sees on screens that change things. */
export function readOnlyNote(): HTMLElement {
  return h(
    "p",
    { class: "read-only", role: "note" },
    "Your viewer seat is read-only: you can look, not change.",
  );
}

/**
 * A secret the server returns once (a token, a signing secret, an invitation
 * link): the explanation, the value in a read-only field and a copy button.
 */
export function shownOnce(label: string, value: string, explanation: string): HTMLElement {
  const input = h("input", { readonly: true, value, "aria-label": label, class: "secret" });
  const copy = h("button", {
    type: "button",
    onClick: async () => {
      input.select();
      await navigator.clipboard?.writeText(value).catch(() => {});
      copy.textContent = "Copied";
    },
  }, "Copy");
  return h(
    "div",
    { class: "card shown-once", role: "status" },
    h("p", null, explanation),
    h("div", { class: "inline-form" }, input, copy),
  );
}

/** Saves the response as a file under the name the server gave it. */
export async function saveCsv(res: Response, fallback = "export.csv"): Promise<string> {
  const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ??
    fallback;
  const url = URL.createObjectURL(await res.blob());
  const a = h("a", { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return name;
}

/** Why a CSV export was refused, from its JSON error body: the field errors, else the message. */
export async function exportFailureText(res: Response): Promise<string> {
  const problem: { message?: string; errors?: Record<string, string[]> } = await res.json()
    .catch(() => ({}));
  return problem.errors
    ? Object.values(problem.errors).flat().join(" ")
    : problem.message ?? `The export failed (HTTP ${res.status}).`;
}
