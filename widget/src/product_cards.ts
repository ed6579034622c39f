/// <reference lib="dom" />
/**
 * The products a reply recommends, as cards under it: image, name, price in
 * the visitor's locale, stock, and a button that opens the product's
 * `buy_url` in a new tab (and reports the click); a sold-out product's button
 * opens its page instead, since its cart link cannot check out. A labelled list, so screen
 * readers announce how many products there are; only http(s) links are opened.
 */
import { h } from "./dom.ts";
import type { Product } from "./types.ts";
import { httpUrl } from "./view.ts";

export function productCards(products: Product[], onOpen: (p: Product) => void): HTMLElement {
  const items = products.map((p) => {
    const image = httpUrl(p.image_url);
    const buy = httpUrl(p.in_stock ? p.buy_url : p.url);
    const verb = p.in_stock ? "Buy" : "View";
    const button = h("button", {
      type: "button",
      class: "primary",
      disabled: !buy,
      "aria-label": `${verb} ${p.name} (opens in a new tab)`,
    }, verb);
    button.addEventListener("click", () => {
      if (!buy) return;
      open(buy, "_blank", "noopener");
      onOpen(p);
    });
    return h(
      "li",
      { class: "product" },
      image ? h("img", { src: image, alt: "", loading: "lazy" }) : null,
      h(
        "div",
        {},
        h("p", { class: "pname" }, p.name),
        h("p", {}, price(p.price, p.currency)),
        h(
          "p",
          { class: p.in_stock ? "stock" : "stock out" },
          p.in_stock ? "In stock" : "Out of stock",
        ),
        button,
      ),
    );
  });
  return h("ul", { class: "products", "aria-label": "Recommended products" }, ...items);
}

function price(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat(navigator.language, { style: "currency", currency })
      .format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
}
