/// <reference lib="dom" />
/**
 * The card offered when a visitor asks for a human and nobody is online: one
 * e-mail field (native validation), replaced by the confirmation once stored.
 */
import { h } from "./dom.ts";

export function emailCard(save: (email: string) => Promise<string>): HTMLFormElement {
  const input = h("input", { name: "email", type: "email", required: true, maxlength: "255" });
  input.setAttribute("autocomplete", "email");
  const status = h("p", { role: "status" });
  const button = h("button", { type: "submit", class: "primary" }, "Send");
  const form = h(
    "form",
    { class: "card email", "aria-label": "Leave your e-mail" },
    h("label", {}, "Your e-mail", input),
    button,
    status,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    button.disabled = true;
    try {
      form.replaceChildren(h("p", { role: "status" }, await save(input.value.trim())));
    } catch {
      status.textContent = "That didn't work. Please check the address and try again.";
      button.disabled = false;
    }
  });
  return form;
}
