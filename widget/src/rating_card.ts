/// <reference lib="dom" />
/**
 * The rating prompt shown once a conversation is closed: five buttons
 * (aria-pressed marks the choice), an optional comment, and a submit that
 * reports back through `onRate`.
 */
import { h } from "./dom.ts";

export function ratingCard(
  onRate: (rating: number, comment: string) => Promise<void>,
): HTMLFormElement {
  let chosen = 0;
  const stars = [1, 2, 3, 4, 5].map((n) =>
    h("button", {
      type: "button",
      class: "star",
      "aria-pressed": "false",
      "aria-label": `${n} of 5`,
    }, "★")
  );
  const comment = h("textarea", { rows: "2", maxlength: "1000", "aria-label": "Comment" });
  const submit = h("button", { type: "submit", class: "primary", disabled: true }, "Send rating");
  const form = h(
    "form",
    { class: "card rating", "aria-label": "Rate this conversation" },
    h("p", {}, "How did we do?"),
    h("div", { class: "stars", role: "group", "aria-label": "Rating" }, ...stars),
    h("label", {}, "Anything to add? (optional)", comment),
    submit,
  );
  stars.forEach((star, i) =>
    star.addEventListener("click", () => {
      chosen = i + 1;
      stars.forEach((s, j) => s.setAttribute("aria-pressed", String(j < chosen)));
      submit.disabled = false;
    })
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!chosen) return;
    submit.disabled = true;
    try {
      await onRate(chosen, comment.value.trim());
      form.replaceChildren(h("p", {}, "Thanks for your feedback!"));
    } catch (err) {
      submit.disabled = false;
      form.append(h("p", { role: "alert" }, (err as Error).message));
    }
  });
  return form;
}
