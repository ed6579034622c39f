/// <reference lib="dom" />
/**
 * A bot's settings: every field (name, provider, model, persona,
 * instructions, welcome message; language shown, fixed), activate and
 * deactivate, delete behind a confirmation that says what goes with it, and
 * the embed snippet with a copy button and the sites it may run on.
 */
import { h } from "../../../inbox/src/dom.ts";
import type { ScreenContext } from "../screen.ts";
import { errorLine, failureText, field, pageHeader, readOnlyNote, showFieldErrors } from "../ui.ts";
import { botTabs } from "./bot_tabs.ts";
import { providerSelect, routingHint } from "./bot_fields.ts";
import { allowedSitesCard } from "./allowed_sites_card.ts";

export async function botSettingsView(ctx: ScreenContext, key: string): Promise<HTMLElement> {
  const [{ data: bot }, keys] = await Promise.all([
    ctx.client.showBot.query({ key }),
    ctx.client.listKeys.query({}),
  ]);
  const canManage = ctx.can("manage-chatbots");
  const name = h("input", { name: "name", value: bot.name, required: true, maxlength: 120 });
  const provider = providerSelect(keys, bot.provider);
  const model = h("input", { name: "model", value: bot.model, required: true, maxlength: 120 });
  const persona = h("textarea", { name: "persona", maxlength: 2000 }, bot.persona);
  const instructions = h("textarea", { name: "instructions", maxlength: 4000 }, bot.instructions);
  const welcome = h("input", {
    name: "welcome_message",
    value: bot.welcome_message,
    maxlength: 300,
  });
  const language = h("input", { name: "language", value: bot.language, disabled: true });
  const error = errorLine();
  const save = h("button", { type: "submit", class: "primary" }, "Save");
  const form: HTMLFormElement = h(
    "form",
    {
      class: "card bot-settings",
      onSubmit: async (e) => {
        e.preventDefault();
        save.disabled = true;
        error.textContent = "";
        try {
          await ctx.client.updateBot.mutate({
            key,
            name: name.value,
            provider: provider.value as never,
            model: model.value,
            persona: persona.value,
            instructions: instructions.value,
            welcome_message: welcome.value,
          });
          ctx.notify("Bot saved.");
        } catch (err) {
          error.textContent = showFieldErrors(form, err);
        }
        save.disabled = false;
      },
    },
    h(
      "div",
      { class: "form-grid" },
      field("Name", name),
      field("Language", language, "Fixed: it decides how the knowledge is indexed."),
      field("Provider", provider, routingHint(keys)),
      field("Model", model),
      h("div", { class: "wide" }, field("Persona", persona)),
      h("div", { class: "wide" }, field("Instructions", instructions)),
      h("div", { class: "wide" }, field("Welcome message", welcome, "Empty restores the default.")),
    ),
    error,
    canManage ? h("div", { class: "form-actions" }, save) : null,
  );
  if (!canManage) {
    for (const el of form.querySelectorAll<HTMLInputElement>("input, select, textarea")) {
      el.disabled = true;
    }
  }

  const state = h("span", {
    class: `pill ${bot.is_active ? "active" : "inactive"}`,
    "data-state": "",
  }, bot.is_active ? "Active" : "Inactive");
  const toggle = h("button", {
    type: "button",
    onClick: async () => {
      toggle.disabled = true;
      try {
        const r = await ctx.client.updateBot.mutate({
          key,
          name: bot.name,
          is_active: !bot.is_active,
        });
        bot.is_active = r.data.is_active;
        state.textContent = bot.is_active ? "Active" : "Inactive";
        state.className = `pill ${bot.is_active ? "active" : "inactive"}`;
        toggle.textContent = bot.is_active ? "Deactivate" : "Activate";
        ctx.notify(
          bot.is_active
            ? "The bot answers again."
            : "The bot is deactivated: its widget no longer loads.",
        );
      } catch (err) {
        ctx.notify(failureText(err));
      }
      toggle.disabled = false;
    },
  }, bot.is_active ? "Deactivate" : "Activate");

  const snippet = h("pre", { class: "snippet", "data-snippet": "" }, bot.snippet);
  const copy = h("button", {
    type: "button",
    onClick: async () => {
      try {
        await navigator.clipboard.writeText(bot.snippet);
        copy.textContent = "Copied";
      } catch {
        // No clipboard permission: select the text so Ctrl+C copies it.
        getSelection()?.selectAllChildren(snippet);
        copy.textContent = "Press Ctrl+C to copy";
      }
      setTimeout(() => (copy.textContent = "Copy snippet"), 2000);
    },
  }, "Copy snippet");

  return h(
    "section",
    { class: "bot" },
    pageHeader(
      bot.name,
      state,
      canManage ? toggle : null,
      canManage ? deleteButton(ctx, key, bot.name, bot.conversations, bot.knowledge_sources) : null,
    ),
    botTabs(key, bot.name, "settings"),
    canManage ? null : readOnlyNote(),
    form,
    h(
      "div",
      { class: "card" },
      h("h2", null, "Embed on your site"),
      h(
        "p",
        { class: "muted" },
        "Paste this before </body> on every page that should show the chat.",
      ),
      snippet,
      h("div", { class: "form-actions" }, copy),
      allowedSitesCard(ctx, { ...bot, public_key: key }, canManage),
    ),
  );
}

function deleteButton(
  ctx: ScreenContext,
  key: string,
  name: string,
  conversations: number,
  sources: number,
) {
  const error = errorLine();
  const confirmDelete = h("button", { type: "button", class: "danger primary" }, "Delete for good");
  const cancel = h("button", { type: "button" }, "Cancel");
  const dialog = h(
    "dialog",
    { class: "confirm", "aria-labelledby": "delete-title" },
    h("h2", { id: "delete-title" }, `Delete ${name}?`),
    h(
      "p",
      null,
      `Its ${conversations} conversations (with their messages) and its ${sources} knowledge sources (with everything indexed from them) are deleted with it. This cannot be undone.`,
    ),
    error,
    h("div", { class: "form-actions" }, confirmDelete, cancel),
  );
  cancel.addEventListener("click", () => dialog.close());
  confirmDelete.addEventListener("click", async () => {
    confirmDelete.disabled = true;
    try {
      await ctx.client.deleteBot.mutate({ key });
      dialog.close();
      ctx.notify(`Bot "${name}" deleted.`);
      ctx.navigate("bots");
    } catch (err) {
      error.textContent = failureText(err);
      confirmDelete.disabled = false;
    }
  });
  const open = h(
    "button",
    { type: "button", class: "danger", onClick: () => dialog.showModal() },
    "Delete",
  );
  return h("span", null, open, dialog);
}
