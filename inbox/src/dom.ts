/// <reference lib="dom" />
/**
 * A tiny element builder. Text always goes in through text nodes, never as
 * markup, so nothing a visitor or agent typed can become HTML.
 */

export type Child = Node | string | number | null | undefined | false;
type Handler = (e: Event) => void;
export type Props = Record<string, string | number | boolean | Handler | null | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | null = null,
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props) {
    for (const [name, value] of Object.entries(props)) {
      if (value === null || value === undefined || value === false) continue;
      if (typeof value === "function") {
        el.addEventListener(name.slice(2).toLowerCase(), value);
      } else if (name === "value" && "value" in el) {
        (el as HTMLInputElement).value = String(value);
      } else {
        el.setAttribute(name === "className" ? "class" : name, value === true ? "" : String(value));
      }
    }
  }
  append(el, children);
  return el;
}

export function append(el: Node, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function fill(el: Element, ...children: (Child | Child[])[]): void {
  el.replaceChildren();
  append(el, children);
}
