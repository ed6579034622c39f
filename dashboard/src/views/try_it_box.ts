/// <reference lib="dom" />
/**
 * The try-it box on a bot's knowledge page: ask a question, see the answer
 * stream in (POST /api/dashboard/chatbots/{key}/try, Server-Sent Events read
 * with fetch) and, above it, the passages retrieval put into the prompt with
 * their scores. Nothing is stored and no quota is used (docs/dashboard.md).
 */
import { h } from "../../../inbox/src/dom.ts";
import type { ScreenContext } from "../screen.ts";
import { loadSession } from "../session_store.ts";
import { errorLine, field } from "../ui.ts";

interface Passage {
  rank: number;
  source_title: string;
  title: string;
  url: string | null;
  content: string;
  score: number;
  /** From a correction of an AI reply (saved from a transcript). */
  correction?: boolean;
}

/** Calls `on(event, data)` for each complete SSE record of the response. */
async function readEvents(res: Response, on: (event: string, data: unknown) => void) {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const record = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(record)?.[1];
      const data = /^data: (.*)$/m.exec(record)?.[1];
      if (event && data) on(event, JSON.parse(data));
    }
  }
}

function passageItem(p: Passage): HTMLElement {
  return h(
    "li",
    { class: "passage", "data-passage": p.rank },
    h(
      "div",
      { class: "passage-head" },
      h("span", { class: "passage-title" }, `[${p.rank}] ${p.title}`),
      p.correction
        ? h(
          "span",
          {
            class: "passage-correction",
            title: "Saved by correcting an AI reply; listed under Corrections",
          },
          "Correction",
        )
        : null,
      h(
        "span",
        { class: "pill", title: "Retrieval's fused score: higher is better" },
        `score ${p.score.toFixed(3)}`,
      ),
    ),
    p.url ? h("span", { class: "muted block" }, p.url) : null,
    h("p", { class: "passage-text" }, p.content),
  );
}

/** For a role holding manage-content (the server refuses the others). */
export function tryItBox(ctx: ScreenContext, key: string): HTMLElement {
  const question = h("textarea", {
    name: "question",
    rows: 2,
    maxlength: 4000,
    placeholder: "Ask what a visitor would ask",
  });
  const answer = h("p", { class: "try-answer", "aria-live": "polite" });
  const passages = h("ol", { class: "passages" });
  const meta = h("p", { class: "muted" });
  const error = errorLine();
  const ask = h("button", { type: "submit", class: "primary" }, "Ask");
  const form: HTMLFormElement = h(
    "form",
    {
      class: "card try-it",
      onSubmit: async (e) => {
        e.preventDefault();
        ask.disabled = true;
        error.textContent = "";
        answer.textContent = "";
        meta.textContent = "";
        passages.replaceChildren();
        for (const slot of form.querySelectorAll<HTMLElement>("[data-error-for]")) {
          slot.textContent = "";
        }
        try {
          const token = loadSession()?.token ?? ctx.session.token;
          const res = await fetch(`/api/dashboard/chatbots/${encodeURIComponent(key)}/try`, {
            method: "POST",
            headers: {
              accept: "text/event-stream",
              "content-type": "application/json",
              authorization: `Bearer ${token}`,
            },
            body: JSON.stringify({ question: question.value }),
          });
          if (!res.ok) {
            const body = await res.json().catch(() => ({}));
            const slot = form.querySelector<HTMLElement>('[data-error-for="question"]');
            if (body.errors?.question && slot) slot.textContent = body.errors.question.join(" ");
            else error.textContent = body.message ?? `The server answered ${res.status}.`;
          } else {
            answer.classList.add("streaming");
            await readEvents(res, (event, data) => {
              const d = data as Record<string, unknown>;
              if (event === "passages") {
                const list = d.passages as Passage[];
                passages.replaceChildren(...list.map(passageItem));
                if (!list.length) {
                  passages.append(
                    h(
                      "li",
                      { class: "muted" },
                      "No passage matched: the bot answers without knowledge.",
                    ),
                  );
                }
              } else if (event === "delta") {
                answer.append(String(d.delta));
              } else if (event === "done") {
                meta.textContent =
                  `${d.tokens_in} tokens in, ${d.tokens_out} out. Not stored; no quota used.`;
              } else if (event === "error") {
                error.textContent = String(d.message);
              }
            });
            answer.classList.remove("streaming");
          }
        } catch {
          error.textContent = "The connection was lost. Try again.";
        }
        ask.disabled = false;
      },
    },
    h("h2", null, "Try it"),
    h(
      "p",
      { class: "muted" },
      "Ask the bot a question: see its answer and the passages of its knowledge that went into the prompt.",
    ),
    field("Question", question),
    error,
    h("div", { class: "form-actions" }, ask),
    h("h3", null, "Answer"),
    answer,
    meta,
    h("h3", null, "Passages in the prompt"),
    passages,
  );
  return form;
}
