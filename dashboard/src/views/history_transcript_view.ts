/// <reference lib="dom" />
/**
 * One conversation of the history, read-only (`#/conversations/<id>`): its
 * facts (bot, visitor, state, agent, tags, rating, summary), then messages,
 * private notes and ownership events on one timeline. Everything a visitor
 * or an agent wrote goes in as text (inbox/src/dom.ts), never as markup.
 * Owners and administrators may correct an AI reply here, as agents do in
 * the inbox (inbox/src/correction_form.ts).
 */
import { h } from "../../../inbox/src/dom.ts";
import type { DashboardOutputs } from "../../../clients/dashboard_client.ts";
import type { ScreenContext } from "../screen.ts";
import { formatDate, pageHeader } from "../ui.ts";
import { stateWords } from "../../../domain/conversations/state_words.ts";
import { correctionForm, questionBefore } from "../../../inbox/src/correction_form.ts";
import { describeFailure } from "../../../clients/dashboard_client.ts";

type Transcript = DashboardOutputs["showConversation"]["data"];

const ROLE_LABEL = { visitor: "Visitor", assistant: "AI", agent: "Agent" } as const;
const ROLE_TONE = { visitor: "tone-visitor", assistant: "tone-ai", agent: "tone-human" } as const;

function fact(label: string, value: string | Node | null): HTMLElement {
  return h("div", { class: "fact" }, h("dt", null, label), h("dd", null, value ?? "—"));
}

/** "Correct this answer" under an AI reply (owners and administrators): the inline form. */
function correctAction(ctx: ScreenContext, c: Transcript, messageId: number): HTMLElement {
  const slot = h("div", { class: "correction-slot" });
  const open = h("button", {
    type: "button",
    class: "link correct-answer",
    "data-correct": messageId,
  }, "Correct this answer");
  open.addEventListener("click", () => {
    if (slot.firstChild) return;
    const form = correctionForm({
      question: questionBefore(c.messages, messageId),
      async save(question, answer) {
        try {
          await ctx.client.correctAnswer.mutate({
            conversation: c.id,
            message: messageId,
            question: question || undefined,
            answer,
          });
          ctx.notify("Correction saved: the bot answers from it from now on.");
          return null;
        } catch (err) {
          const f = describeFailure(err);
          return f.errors ? Object.values(f.errors).flat().join(" ") : f.message;
        }
      },
      close: () => slot.replaceChildren(),
    });
    slot.replaceChildren(form);
    form.querySelector<HTMLTextAreaElement>("textarea[name=answer]")?.focus();
  });
  return h("div", { class: "entry-actions" }, open, slot);
}

function timeline(ctx: ScreenContext, c: Transcript): HTMLElement[] {
  const canCorrect = ctx.can("manage-content");
  const items: { at: string; order: number; el: HTMLElement }[] = [];
  c.messages.forEach((m, i) =>
    items.push({
      at: m.at,
      order: i,
      el: h(
        "li",
        { class: `entry message ${ROLE_TONE[m.role]}`, "data-role": m.role },
        h(
          "div",
          { class: "entry-head" },
          h("strong", null, ROLE_LABEL[m.role]),
          " ",
          h("time", { datetime: m.at }, formatDate(m.at)),
        ),
        h("div", { class: "entry-text" }, m.content),
        m.role === "assistant" && canCorrect ? correctAction(ctx, c, m.id) : null,
      ),
    })
  );
  for (const n of c.notes) {
    items.push({
      at: n.at,
      order: 1e6,
      el: h(
        "li",
        { class: "entry note", "data-kind": "note" },
        h(
          "div",
          { class: "entry-head" },
          h("strong", null, `Private note · ${n.author ?? "former member"}`),
          " ",
          h("time", { datetime: n.at }, formatDate(n.at)),
        ),
        h("div", { class: "entry-text" }, n.body),
      ),
    });
  }
  for (const e of c.events) {
    items.push({
      at: e.at,
      order: 2e6,
      el: h(
        "li",
        { class: "entry event", "data-kind": "event" },
        h(
          "span",
          null,
          `${e.type.replaceAll("_", " ")} (${e.source}${e.actor ? `, ${e.actor}` : ""})`,
        ),
        " ",
        h("time", { datetime: e.at }, formatDate(e.at)),
      ),
    });
  }
  return items.sort((a, b) => a.at.localeCompare(b.at) || a.order - b.order).map((x) => x.el);
}

export async function transcriptView(ctx: ScreenContext, id: string): Promise<HTMLElement> {
  const { data: c } = await ctx.client.showConversation.query({ conversation: id });
  ctx.dataReady();
  const visitor = [c.visitor.name, c.visitor.email, c.visitor.phone].filter(Boolean).join(" · ") ||
    c.visitor.id;
  const tags = c.tags.length ? c.tags.map((t) => t.name).join(", ") : null;
  return h(
    "section",
    { class: "transcript" },
    pageHeader(
      `Conversation with ${visitor}`,
      h("a", { href: "#/conversations", class: "button" }, "Back to the list"),
    ),
    h(
      "p",
      { class: "read-only", role: "note" },
      "Read-only transcript. Reply from the inbox.",
      ctx.can("manage-content")
        ? " A wrong AI reply can be corrected here: the right answer becomes knowledge of the bot."
        : "",
    ),
    h(
      "dl",
      { class: "transcript-facts card" },
      fact("Bot", c.bot.name),
      fact(
        "State",
        `${stateWords(c.status, c.handoff_state)}${c.resolution ? ` (${c.resolution})` : ""}`,
      ),
      fact("Agent", c.assigned_to?.name ?? null),
      fact("Tags", tags),
      fact(
        "Rating",
        c.rating === null
          ? null
          : `${c.rating}/5${c.rating_comment ? `: ${c.rating_comment}` : ""}`,
      ),
      fact("Started", formatDate(c.started_at)),
      fact("Last message", formatDate(c.last_message_at)),
      fact("Visitor id", c.visitor.id),
      c.summary ? fact("Summary", c.summary) : null,
    ),
    c.messages_total > c.messages.length
      ? h(
        "p",
        { class: "muted" },
        `Showing the newest ${c.messages.length} of ${c.messages_total} messages.`,
      )
      : null,
    h("ol", { class: "timeline", "aria-label": "Transcript" }, timeline(ctx, c)),
  );
}
