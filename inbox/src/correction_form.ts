/// <reference lib="dom" />
/**
 * "Correct this answer": the inline form under an AI reply, shared by the
 * inbox and the dashboard's history transcript. The question comes prefilled
 * with the visitor's message the reply answered and stays editable; the right
 * answer is saved as a Q&A source of the bot (docs/answering.md#corrections).
 * Everything goes in as text (dom.ts).
 */
import { h } from "./dom.ts";

export interface CorrectionFormOptions {
  /** The visitor's message before the reply ("" when there is none). */
  question: string;
  /** Saves; resolves with an error text to show, or null when saved. */
  save(question: string, answer: string): Promise<string | null>;
  /** Closes the form (after Cancel or a save). */
  close(): void;
}

/** The visitor message an AI reply answered: the last one before it. */
export function questionBefore(
  messages: readonly { id: number; role: string; content: string }[],
  messageId: number,
): string {
  const at = messages.findIndex((m) => m.id === messageId);
  for (let i = at - 1; i >= 0; i--) {
    if (messages[i]!.role === "visitor") return messages[i]!.content;
  }
  return "";
}

export function correctionForm(o: CorrectionFormOptions): HTMLFormElement {
  const question = h("textarea", {
    name: "question",
    rows: 2,
    maxlength: 2000,
    required: true,
    "aria-label": "Question",
  });
  question.value = o.question;
  const answer = h("textarea", {
    name: "answer",
    rows: 4,
    maxlength: 50000,
    required: true,
    "aria-label": "Right answer",
    placeholder: "The right answer, as the bot should give it",
  });
  const error = h("p", { class: "correction-error", role: "alert" });
  const saveButton = h("button", { type: "submit", class: "primary" }, "Save correction");
  const form = h(
    "form",
    { class: "correction-form", "aria-label": "Correct this answer" },
    h("label", null, "Question", question),
    h("label", null, "Right answer", answer),
    h(
      "p",
      { class: "correction-help" },
      "Saved as a Q&A source of this bot and used from the next question on.",
    ),
    error,
    h(
      "div",
      { class: "correction-buttons" },
      saveButton,
      h("button", { type: "button", class: "cancel", onClick: () => o.close() }, "Cancel"),
    ),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!answer.value.trim()) {
      error.textContent = "Write the right answer first.";
      return;
    }
    saveButton.disabled = true;
    error.textContent = "";
    const failure = await o.save(question.value.trim(), answer.value.trim());
    saveButton.disabled = false;
    if (failure) error.textContent = failure;
    else o.close();
  });
  return form;
}
