/// <reference lib="dom" />
/**
 * Where a bot's widget may run (docs/widget-api.md#allowed-sites): one site
 * per line, saved with the bot; the card says plainly what the list does and
 * what it cannot stop.
 */
import { h } from "../../../inbox/src/dom.ts";
import type { ScreenContext } from "../screen.ts";
import { errorLine, field, showFieldErrors } from "../ui.ts";

export function allowedSitesCard(
  ctx: ScreenContext,
  bot: { public_key: string; name: string; allowed_origins: string[] },
  canManage: boolean,
): HTMLElement {
  const sites = h(
    "textarea",
    {
      name: "allowed_origins",
      rows: "4",
      placeholder: "https://www.example.com\nhttps://*.example.com",
      disabled: !canManage,
    },
    bot.allowed_origins.join("\n"),
  );
  const state = h("p", { class: "muted", "data-sites-state": "" });
  const describe = (list: string[]) => {
    state.textContent = list.length
      ? `The chat runs only on ${
        list.join(", ")
      }. Anywhere else it shows "This chat is not available on this site".`
      : "Any site that copies the snippet can show this chat. List your sites to keep it on them.";
  };
  describe(bot.allowed_origins);
  const error = errorLine();
  const save = h("button", { type: "submit", class: "primary" }, "Save sites");
  const form: HTMLFormElement = h(
    "form",
    {
      class: "allowed-sites",
      onSubmit: async (e: Event) => {
        e.preventDefault();
        save.disabled = true;
        error.textContent = "";
        try {
          const list = sites.value.split("\n").map((s) => s.trim()).filter((s) => s !== "");
          const r = await ctx.client.updateBot.mutate({
            key: bot.public_key,
            name: bot.name,
            allowed_origins: list,
          });
          sites.value = r.data.allowed_origins.join("\n");
          describe(r.data.allowed_origins);
          showFieldErrors(form, null);
          ctx.notify("Allowed sites saved.");
        } catch (err) {
          error.textContent = showFieldErrors(form, err);
        }
        save.disabled = false;
      },
    },
    h("h3", null, "Allowed sites"),
    state,
    field(
      "Sites, one per line",
      sites,
      "An address such as https://shop.example.com; *.example.com allows every subdomain. " +
        "Browsers obey this list; a script outside a browser can still call the chat, " +
        "and the rate limits and the monthly quota stay its limit.",
    ),
    error,
    canManage ? h("div", { class: "form-actions" }, save) : null,
  );
  return form;
}
