/// <reference lib="dom" />
/**
 * A bot's corrections on its knowledge page: each AI reply someone corrected
 * (question, right answer, who, when, the conversation it came from), with
 * Edit (inline, indexed again at once) and Delete (the Q&A source's own
 * delete) for owners and administrators; viewers read it. Question and
 * answer go in as text.
 */
import { fill, h } from "../../../inbox/src/dom.ts";
import type { DashboardOutputs } from "../../../clients/dashboard_client.ts";
import type { ScreenContext } from "../screen.ts";
import { failureText, formatDate } from "../ui.ts";

type Correction = DashboardOutputs["listCorrections"]["data"][number];

function editForm(
  ctx: ScreenContext,
  key: string,
  c: Correction,
  done: (saved: boolean) => void,
): HTMLFormElement {
  const question = h("textarea", { name: "question", rows: 2, maxlength: 2000 });
  question.value = c.question;
  const answer = h("textarea", { name: "answer", rows: 4, maxlength: 50000 });
  answer.value = c.answer;
  const error = h("p", { class: "correction-error", role: "alert" });
  const form = h(
    "form",
    { class: "correction-form" },
    h("label", null, "Question", question),
    h("label", null, "Right answer", answer),
    error,
    h(
      "div",
      { class: "correction-buttons" },
      h("button", { type: "submit", class: "primary" }, "Save"),
      h("button", { type: "button", onClick: () => done(false) }, "Cancel"),
    ),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      await ctx.client.editCorrection.mutate({
        key,
        correction: c.id,
        question: question.value.trim() || undefined,
        answer: answer.value.trim() || undefined,
      });
      ctx.notify("Correction saved and indexed again.");
      done(true);
    } catch (err) {
      error.textContent = failureText(err);
    }
  });
  return form;
}

function correctionItem(
  ctx: ScreenContext,
  key: string,
  c: Correction,
  reload: () => void,
): HTMLElement {
  const canManage = ctx.can("manage-content");
  const item: HTMLElement = h("li", { class: "correction card", "data-correction": c.id });
  const show = () => {
    fill(
      item,
      h("p", { class: "correction-question" }, h("strong", null, "Q: "), c.question),
      h("p", { class: "correction-answer" }, h("strong", null, "A: "), c.answer),
      h(
        "p",
        { class: "muted" },
        `${c.corrected_by} · ${formatDate(c.created_at)}`,
        c.conversation_id
          ? [" · ", h("a", { href: `#/conversations/${c.conversation_id}` }, "conversation")]
          : " · conversation deleted",
        c.status === "ready" ? "" : ` · ${c.status}`,
      ),
      canManage
        ? h(
          "div",
          { class: "row-actions" },
          h("button", {
            type: "button",
            onClick: () =>
              item.replaceChildren(editForm(ctx, key, c, (saved) => {
                if (saved) reload();
                else show();
              })),
          }, "Edit"),
          h("button", {
            type: "button",
            class: "danger",
            onClick: async () => {
              if (!confirm("Delete this correction? The bot stops answering from it.")) return;
              try {
                await ctx.client.deleteKnowledge.mutate({ key, source: c.source_id });
                ctx.notify("Correction deleted.");
                reload();
              } catch (err) {
                ctx.notify(failureText(err));
              }
            },
          }, "Delete"),
        )
        : null,
    );
  };
  show();
  return item;
}

/** The card; loads its list and reloads it after an edit or a delete. */
export function correctionsCard(ctx: ScreenContext, key: string): HTMLElement {
  const list = h("ol", { class: "corrections", "aria-label": "Corrections" });
  const load = async () => {
    try {
      const { data } = await ctx.client.listCorrections.query({ key });
      list.replaceChildren(
        ...(data.length ? data.map((c) => correctionItem(ctx, key, c, () => void load())) : [
          h(
            "li",
            { class: "muted" },
            "No corrections yet. Correct an AI reply from a conversation in the inbox or the history.",
          ),
        ]),
      );
    } catch (err) {
      list.replaceChildren(h("li", { class: "field-error" }, failureText(err)));
    }
  };
  void load();
  return h(
    "section",
    { class: "corrections-card", "aria-label": "Corrections of AI replies" },
    h("h2", null, "Corrections"),
    h(
      "p",
      { class: "muted" },
      "Right answers saved by correcting an AI reply. Each is a Q&A source of this bot, listed above too.",
    ),
    list,
  );
}
