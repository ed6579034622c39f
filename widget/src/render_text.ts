/// <reference lib="dom" />
/**
 * Message text to DOM nodes: plain text nodes, with http(s) URLs and
 * Markdown-style `[label](https://…)` links turned into anchors built with
 * DOM calls. Nothing in a message is ever parsed as HTML, so `<img onerror>`
 * shows as the characters it is.
 */

const LINK = /\[([^\]\n]{1,200})\]\((https?:\/\/[^\s()]+)\)|(https?:\/\/[^\s<>"']+)/g;
const TRAILING = /[.,;:!?)\]'"]+$/;

/** Replaces `el`'s children with `text` rendered safely. */
export function renderText(el: HTMLElement, text: string): void {
  const nodes: Node[] = [];
  let last = 0;
  for (const m of text.matchAll(LINK)) {
    const start = m.index ?? 0;
    let label = m[1];
    let url = m[2] ?? m[3] ?? "";
    let tail = "";
    if (!label) {
      tail = url.match(TRAILING)?.[0] ?? "";
      url = url.slice(0, url.length - tail.length);
      // A closing parenthesis that balances one in the URL belongs to it (Wikipedia links).
      while (tail.startsWith(")") && count(url, "(") > count(url, ")")) {
        url += ")";
        tail = tail.slice(1);
      }
      label = url;
    }
    const anchor = safeAnchor(url, label);
    if (!anchor) continue;
    if (start > last) nodes.push(document.createTextNode(text.slice(last, start)));
    nodes.push(anchor);
    if (tail) nodes.push(document.createTextNode(tail));
    last = start + m[0].length;
  }
  if (last < text.length) nodes.push(document.createTextNode(text.slice(last)));
  el.replaceChildren(...nodes);
}

const count = (s: string, c: string) => s.split(c).length - 1;

/** An anchor for an http(s) URL, or null for anything else. */
export function safeAnchor(url: string, label: string): HTMLAnchorElement | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
  const a = document.createElement("a");
  a.href = parsed.href;
  a.textContent = label;
  a.target = "_blank";
  a.rel = "noopener noreferrer";
  return a;
}
