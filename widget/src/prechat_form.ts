/// <reference lib="dom" />
/**
 * The pre-chat form: the fields the bot asks for before the first message.
 * Uses native form validation (required, type=email) so it works by
 * keyboard and with screen readers without extra code.
 */
import { h } from "./dom.ts";
import type { VisitorStore } from "./storage.ts";
import type { PrechatField, VisitorDetails } from "./types.ts";
import type { View } from "./view.ts";

/** The visitor's pre-chat answers for this bot, if given. */
export function storedDetails(store: VisitorStore): VisitorDetails | undefined {
  const raw = store.get("details");
  try {
    return raw ? JSON.parse(raw) as VisitorDetails : undefined;
  } catch {
    return undefined;
  }
}

/** The form, with the composer disabled until it is sent; answers are stored for later turns. */
export function prechatGate(
  fields: PrechatField[],
  store: VisitorStore,
  view: View,
): HTMLFormElement {
  view.input.disabled = true;
  view.send.disabled = true;
  const form = prechatForm(fields, (details) => {
    store.set("details", JSON.stringify(details));
    form.remove();
    view.input.disabled = false;
    view.send.disabled = false;
    view.input.focus();
  });
  return form;
}

export function prechatForm(
  fields: PrechatField[],
  onSubmit: (details: VisitorDetails) => void,
): HTMLFormElement {
  const inputs = fields.map((f) =>
    h("input", {
      name: f.name,
      type: f.type,
      required: f.required,
      maxlength: f.name === "phone" ? "50" : "255",
      autocomplete: f.name === "phone" ? "tel" : f.name,
    })
  );
  const form = h(
    "form",
    { class: "card prechat", "aria-label": "Before we start" },
    h("p", {}, "Before we start, tell us who you are."),
    ...fields.map((f, i) => h("label", {}, f.label + (f.required ? " *" : ""), inputs[i]!)),
    h("button", { type: "submit", class: "primary" }, "Start chat"),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const details: VisitorDetails = {};
    fields.forEach((f, i) => {
      const value = inputs[i]!.value.trim();
      if (value) details[f.name] = value;
    });
    onSubmit(details);
  });
  return form;
}
