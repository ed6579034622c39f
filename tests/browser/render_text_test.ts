/// <reference lib="dom" />
/**
 * The widget's text rendering and colour handling, checked on a DOM
 * implementation (linkedom) without a browser: message text never becomes
 * markup, only http(s) links become anchors, and branding colours cannot
 * inject CSS.
 */
import { parseHTML } from "linkedom";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { renderText } from "../../widget/src/render_text.ts";
import { contrastOn, safeColor, themeProperties, THEMES } from "../../widget/src/themes.ts";

const { document } = parseHTML("<!doctype html><html><body></body></html>");
(globalThis as unknown as { document: Document }).document = document as unknown as Document;

function render(text: string) {
  const el = document.createElement("div") as unknown as HTMLElement;
  renderText(el, text);
  const links = [...el.querySelectorAll("a")].map((a) => ({
    href: a.getAttribute("href"),
    text: a.textContent,
    rel: a.getAttribute("rel"),
    target: a.getAttribute("target"),
  }));
  return { el, text: el.textContent, links, elements: el.querySelectorAll("*").length };
}

Deno.test("markup in a message stays text: no element is created from it", () => {
  for (
    const payload of [
      `<img src=x onerror="alert(1)">`,
      `<script>alert(1)</script>`,
      `<a href="javascript:alert(1)">click</a>`,
      `&lt;b&gt;not bold&lt;/b&gt;`,
      `<svg onload=alert(1)>`,
    ]
  ) {
    const r = render(payload);
    assertEquals(r.text, payload);
    assertEquals(r.elements, 0, payload);
  }
});

Deno.test("http(s) URLs become new-tab anchors without opener, trailing punctuation excluded", () => {
  const r = render("See https://example.com/a?b=1&c=2. Or (http://example.org/x), ok?");
  assertEquals(r.text, "See https://example.com/a?b=1&c=2. Or (http://example.org/x), ok?");
  assertEquals(r.links, [
    {
      href: "https://example.com/a?b=1&c=2",
      text: "https://example.com/a?b=1&c=2",
      rel: "noopener noreferrer",
      target: "_blank",
    },
    {
      href: "http://example.org/x",
      text: "http://example.org/x",
      rel: "noopener noreferrer",
      target: "_blank",
    },
  ]);
});

Deno.test("a closing parenthesis that balances one in the URL stays in the link", () => {
  const r = render("(see https://en.wikipedia.org/wiki/Tea_(meal)).");
  assertEquals(r.links.map((l) => l.href), ["https://en.wikipedia.org/wiki/Tea_(meal)"]);
  assertEquals(r.text, "(see https://en.wikipedia.org/wiki/Tea_(meal)).");
});

Deno.test("Markdown links keep their label; other schemes are never linked", () => {
  const r = render(
    "[Docs](https://example.com/docs) [x](javascript:alert(1)) [y](data:text/html,hi) ftp://h/f",
  );
  assertEquals(r.links.map((l) => [l.href, l.text]), [["https://example.com/docs", "Docs"]]);
  assertOk(r.text.includes("[x](javascript:alert(1))"));
  assertOk(r.text.includes("ftp://h/f"));
});

Deno.test("a URL with markup after it does not carry the markup into the link", () => {
  const r = render(`https://example.com/"><img src=x onerror=alert(1)>`);
  assertEquals(r.links.length, 1);
  assertEquals(r.links[0]!.href, "https://example.com/");
  assertEquals(r.elements, 1);
});

Deno.test("branding colours are hex only, so a colour cannot inject CSS", () => {
  assertEquals(safeColor("#ff6600"), "#ff6600");
  assertEquals(safeColor("#abc"), "#abc");
  assertEquals(safeColor("#11223344"), "#11223344");
  for (const bad of ["red", "#ff6600;background:url(x)", "#12", "", "#gggggg"]) {
    assertEquals(safeColor(bad), "#4f46e5", bad);
  }
  assertEquals(contrastOn("#ffffff"), "#111827");
  assertEquals(contrastOn("#1e3a8a"), "#ffffff");
});

Deno.test("all ten themes define every custom property", () => {
  const names = Object.keys(THEMES).sort();
  assertEquals(names, [
    "crisp",
    "emerald",
    "forest",
    "midnight",
    "minimal",
    "ocean",
    "rose",
    "slate",
    "sunset",
    "violet",
  ]);
  for (const name of names) {
    const props = themeProperties(name, "#ff6600");
    assertEquals(Object.keys(props).length, 10, name);
    for (const [k, v] of Object.entries(props)) assertOk(v && !v.includes("P,"), `${name} ${k}`);
  }
  assertEquals(themeProperties("unknown", "#000")["--pw-bg"], THEMES.minimal!.bg);
});
