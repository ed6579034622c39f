/// <reference lib="dom" />
/** The header of a bot's pages: the way back to the list and a tab per page of the bot. */
import { h } from "../../../inbox/src/dom.ts";

export function botTabs(key: string, name: string, current: "settings" | "knowledge" | "branding") {
  const k = encodeURIComponent(key);
  const tab = (id: typeof current, label: string, href: string) =>
    h("a", { href, "aria-current": id === current ? "page" : null }, label);
  return h(
    "div",
    null,
    h("p", { class: "crumbs" }, h("a", { href: "#/bots" }, "Bots"), " / ", name),
    h(
      "nav",
      { class: "tabs", "aria-label": "Bot" },
      tab("settings", "Settings", `#/bots/${k}`),
      tab("branding", "Branding", `#/bots/${k}/branding`),
      tab("knowledge", "Knowledge", `#/bots/${k}/knowledge`),
    ),
  );
}
