/// <reference lib="dom" />
/**
 * What a page sees when the bot's owner did not allow its site
 * (docs/widget-api.md#allowed-sites): a small notice where the launcher would
 * be, saying so in the server's words, that the visitor can close. The page
 * owner who copied a snippet learns why no chat appears; no conversation is
 * possible from here.
 */
import { h } from "./dom.ts";

const NOTICE_STYLES = `
:host{all:initial}
.notice{position:fixed;bottom:20px;right:20px;z-index:2147483000;display:flex;gap:10px;align-items:center;max-width:320px;padding:10px 12px;border-radius:10px;background:#1f2937;color:#f9fafb;font:13px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;box-shadow:0 6px 24px rgba(0,0,0,.2)}
button{all:unset;cursor:pointer;padding:0 4px;font-size:16px;line-height:1}
button:focus-visible{outline:2px solid #93c5fd}
`;

export function showUnavailableNotice(message: string): void {
  const host = h("div", { "data-parley": "unavailable" });
  const root = host.attachShadow({ mode: "open" });
  const close = h("button", { type: "button", "aria-label": "Close" }, "×");
  close.addEventListener("click", () => host.remove());
  root.append(
    h("style", {}, NOTICE_STYLES),
    h("div", { class: "notice", role: "status" }, h("span", {}, message), close),
  );
  document.body.append(host);
}
