/// <reference lib="dom" />
/**
 * Provider keys: the eight providers with label, last four and state; set
 * (replace) and delete; "Test" tries the key typed in (before saving) or the
 * one in use, and says the outcome in words. Keys are write-only: the page
 * never sees one back.
 */
import { h } from "../../../inbox/src/dom.ts";
import type { DashboardOutputs } from "../../../clients/dashboard_client.ts";
import type { Screen, ScreenContext } from "../screen.ts";
import { unstoredKeyWords } from "../../../domain/ai/server_routing.ts";
import { errorLine, failureText, pageHeader, readOnlyNote, showFieldErrors } from "../ui.ts";

type Key = DashboardOutputs["listKeys"]["data"][number];
type Server = DashboardOutputs["listKeys"]["server"];

function keyRow(ctx: ScreenContext, k: Key, server: Server, refresh: () => void): HTMLElement {
  const canManage = ctx.can("manage-workspace");
  const input = h("input", {
    type: "password",
    name: "api_key",
    autocomplete: "off",
    placeholder: k.configured ? "Replace the key" : "Paste a key",
    "aria-label": `${k.label} key`,
    maxlength: 300,
  });
  // The outcome of "Test" in words, beside the key it is about (never the key itself).
  const outcome = h("span", { class: "key-test", role: "status", "data-key-test": k.provider });
  const test = h("button", {
    type: "button",
    title: "Try the key typed in, or else the one in use, with one minimal call",
    onClick: async () => {
      test.disabled = true;
      outcome.textContent = "Testing…";
      outcome.className = "key-test";
      try {
        const typed = input.value.trim();
        const r = await ctx.client.testKey.mutate({
          provider: k.provider,
          ...(typed ? { api_key: typed } : {}),
        });
        outcome.textContent = r.message;
        outcome.className = `key-test ${r.ok ? "ok" : "form-error"}`;
      } catch (err) {
        outcome.textContent = failureText(err);
        outcome.className = "key-test form-error";
      } finally {
        test.disabled = false;
      }
    },
  }, "Test");
  const error = errorLine();
  const save = h("button", { type: "submit", class: "primary" }, "Save");
  const form: HTMLFormElement = h(
    "form",
    {
      class: "key-form",
      onSubmit: async (e) => {
        e.preventDefault();
        save.disabled = true;
        try {
          await ctx.client.putKey.mutate({ provider: k.provider, api_key: input.value });
          ctx.notify(`${k.label} key saved.`);
          refresh();
        } catch (err) {
          error.textContent = showFieldErrors(form, err);
          save.disabled = false;
        }
      },
    },
    input,
    h("span", { class: "field-error", "data-error-for": "api_key" }),
    save,
    test,
    outcome,
    error,
  );
  const remove = h("button", {
    type: "button",
    class: "danger",
    onClick: async () => {
      if (
        !confirm(
          `Remove the ${k.label} key? Bots using ${k.label} stop answering until a new key is stored.`,
        )
      ) return;
      try {
        ctx.notify((await ctx.client.deleteKey.mutate({ provider: k.provider })).message);
        refresh();
      } catch (err) {
        ctx.notify(failureText(err));
      }
    },
  }, "Remove");
  return h(
    "tr",
    { "data-provider": k.provider },
    h("td", null, k.label),
    h(
      "td",
      null,
      h(
        "span",
        { class: `pill ${k.configured || unstoredKeyWords(server) ? "ready" : "pending"}` },
        k.configured ? "Configured" : unstoredKeyWords(server) ?? "Not set",
      ),
    ),
    h("td", null, k.last_four ? `…${k.last_four}` : "—"),
    h("td", null, canManage ? form : null, canManage && k.configured ? remove : null),
  );
}

export const keysScreen: Screen = {
  path: "keys",
  title: "Provider keys",
  async render(ctx) {
    const body = h("tbody");
    const routing = h("p", { class: "notice routing-note", hidden: true });
    const load = async () => {
      const keys = await ctx.client.listKeys.query({});
      routing.textContent = keys.server.note ?? "";
      routing.hidden = !keys.server.note;
      body.replaceChildren(
        ...keys.data.map((k) => keyRow(ctx, k, keys.server, () => void load())),
      );
    };
    await load();
    return h(
      "section",
      { class: "keys" },
      pageHeader("Provider keys"),
      h(
        "p",
        { class: "muted" },
        "Each bot answers with its provider's key. Keys are stored encrypted and never shown again; only their last four characters are.",
      ),
      routing,
      ctx.can("manage-workspace") ? null : readOnlyNote(),
      h(
        "div",
        { class: "table-wrap" },
        h(
          "table",
          { class: "list" },
          h(
            "thead",
            null,
            h("tr", null, ["Provider", "State", "Key", ""].map((t) => h("th", null, t))),
          ),
          body,
        ),
      ),
    );
  },
};
