/// <reference lib="dom" />
/**
 * The Bots screen: `#/bots` lists the bots with a form to create one;
 * `#/bots/<key>` is a bot's settings (bot_settings_view.ts). A bot's further
 * pages (knowledge, branding) become `#/bots/<key>/<tab>`, one view file each,
 * dispatched here and named in bot_tabs.ts.
 */
import { h } from "../../../inbox/src/dom.ts";
import type { DashboardOutputs } from "../../../clients/dashboard_client.ts";
import type { Screen, ScreenContext } from "../screen.ts";
import {
  errorLine,
  field,
  formatNumber,
  pageHeader,
  readOnlyNote,
  showFieldErrors,
} from "../ui.ts";
import { botSettingsView } from "./bot_settings_view.ts";
import { botKnowledgeView } from "./bot_knowledge_view.ts";
import { botBrandingView } from "./bot_branding_view.ts";
import { LANGUAGES, providerSelect, routingHint } from "./bot_fields.ts";

type Bot = DashboardOutputs["listBots"]["data"][number];
type Provider = DashboardOutputs["listKeys"]["data"][number];

function botRow(bot: Bot, providers: Provider[]): HTMLElement {
  const label = providers.find((p) => p.provider === bot.provider)?.label ?? bot.provider;
  return h(
    "tr",
    { "data-bot": bot.public_key },
    h("td", null, h("a", { href: `#/bots/${encodeURIComponent(bot.public_key)}` }, bot.name)),
    h(
      "td",
      null,
      h(
        "span",
        { class: `pill ${bot.is_active ? "active" : "inactive"}` },
        bot.is_active ? "Active" : "Inactive",
      ),
    ),
    h("td", null, `${label} · ${bot.model}`),
    h("td", null, formatNumber(bot.knowledge_sources)),
    h("td", null, formatNumber(bot.conversations)),
    h(
      "td",
      { class: "row-actions" },
      h("a", { href: `#/bots/${encodeURIComponent(bot.public_key)}` }, "Settings"),
    ),
  );
}

function createForm(ctx: ScreenContext, keys: DashboardOutputs["listKeys"]): HTMLElement {
  const name = h("input", { name: "name", required: true, maxlength: 120 });
  const provider = providerSelect(keys, "provider_1");
  const model = h("input", { name: "model", value: "gpt-4o-mini", required: true, maxlength: 120 });
  const persona = h("textarea", { name: "persona", maxlength: 2000 });
  const instructions = h("textarea", { name: "instructions", maxlength: 4000 });
  const welcome = h("input", {
    name: "welcome_message",
    maxlength: 300,
    placeholder: "Hi there! How can I help you today?",
  });
  const language = h(
    "select",
    { name: "language" },
    LANGUAGES.map((l) => h("option", { value: l }, l)),
  );
  const error = errorLine();
  const submit = h("button", { type: "submit", class: "primary" }, "Create bot");
  const form: HTMLFormElement = h(
    "form",
    {
      class: "card create-bot",
      onSubmit: async (e) => {
        e.preventDefault();
        submit.disabled = true;
        error.textContent = "";
        try {
          const r = await ctx.client.createBot.mutate({
            name: name.value,
            provider: provider.value as never,
            model: model.value,
            persona: persona.value,
            instructions: instructions.value,
            welcome_message: welcome.value,
            language: language.value as never,
          });
          ctx.notify(`Bot "${r.data.name}" created.`);
          ctx.navigate(`bots/${encodeURIComponent(r.data.public_key)}`);
        } catch (err) {
          error.textContent = showFieldErrors(form, err);
          submit.disabled = false;
        }
      },
    },
    h("h2", null, "New bot"),
    h(
      "div",
      { class: "form-grid" },
      field("Name", name),
      field("Language", language, "How its knowledge is indexed; fixed once created."),
      field("Provider", provider, routingHint(keys)),
      field("Model", model),
      h("div", { class: "wide" }, field("Persona", persona)),
      h("div", { class: "wide" }, field("Instructions", instructions)),
      h("div", { class: "wide" }, field("Welcome message", welcome)),
    ),
    error,
    h("div", { class: "form-actions" }, submit),
  );
  return form;
}

async function botList(ctx: ScreenContext): Promise<HTMLElement> {
  const [bots, keys, overview] = await Promise.all([
    ctx.client.listBots.query({}),
    ctx.client.listKeys.query({}),
    ctx.client.overview.query({}),
  ]);
  const limit = overview.usage.chatbot_limit;
  const atLimit = bots.data.length >= limit;
  const canManage = ctx.can("manage-chatbots");
  return h(
    "section",
    { class: "bots" },
    pageHeader(
      "Bots",
      h(
        "span",
        { class: "muted", "data-bot-count": "" },
        `${bots.data.length} of ${limit} on your plan`,
      ),
    ),
    canManage ? null : readOnlyNote(),
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { class: "list" },
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            ["Name", "State", "Provider · model", "Sources", "Conversations", ""].map((t) =>
              h("th", null, t)
            ),
          ),
        ),
        h("tbody", null, bots.data.map((b) => botRow(b, keys.data))),
      ),
    ),
    !canManage ? null : atLimit
      ? h(
        "p",
        { class: "limit-note", role: "note" },
        `Your plan allows ${limit} bots and you have ${bots.data.length}. Delete one, or change plans, to create another.`,
      )
      : createForm(ctx, keys),
  );
}

export const botsScreen: Screen = {
  path: "bots",
  title: "Bots",
  render(ctx, params) {
    const [key, tab] = params;
    if (!key) return botList(ctx);
    if (tab === "knowledge") return botKnowledgeView(ctx, key);
    if (tab === "branding") return botBrandingView(ctx, key);
    return botSettingsView(ctx, key);
  },
};
