/**
 * Page text for indexing, read with a real HTML parser (linkedom): the main
 * content (`main`, `article`, `[role=main]`, else the body) without scripts,
 * navigation, headers, footers and forms, headings kept as `#` lines so the
 * chunker splits on them; plus the page title, its links and robots meta.
 */
import { parseHTML } from "linkedom";

export interface ExtractedPage {
  title: string;
  text: string;
  /** Absolute http(s) links, fragments removed. */
  links: string[];
  noindex: boolean;
  nofollow: boolean;
}

const SKIP = new Set([
  "head",
  "title",
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "canvas",
  "iframe",
  "object",
  "nav",
  "header",
  "footer",
  "aside",
  "form",
  "button",
  "select",
  "textarea",
  "dialog",
]);
const BLOCK = new Set([
  "p",
  "div",
  "section",
  "article",
  "main",
  "ul",
  "ol",
  "li",
  "table",
  "tr",
  "blockquote",
  "pre",
  "dl",
  "dt",
  "dd",
  "figure",
  "figcaption",
  "address",
  "details",
  "summary",
  "hr",
  "td",
  "th",
]);

/** The slice of the DOM we use (Deno's type library has no DOM). */
interface DomNode {
  nodeType: number;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
  tagName?: string;
  hasAttribute?(name: string): boolean;
}

interface DomElement extends DomNode {
  getAttribute(name: string): string | null;
}

interface DomDocument extends DomNode {
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
}

function squash(text: string): string {
  return text.replace(/\s+/g, " ");
}

function render(node: DomNode, out: string[]): void {
  for (const child of Array.from(node.childNodes)) {
    if (child.nodeType === 3) {
      out.push(squash(child.textContent ?? ""));
      continue;
    }
    if (child.nodeType !== 1 || !child.tagName) continue;
    const tag = child.tagName.toLowerCase();
    if (SKIP.has(tag) || child.hasAttribute?.("hidden")) continue;
    const heading = /^h([1-6])$/.exec(tag);
    if (heading) {
      const text = squash(child.textContent ?? "").trim();
      if (text) out.push(`\n\n${"#".repeat(Number(heading[1]))} ${text}\n\n`);
      continue;
    }
    if (tag === "br") {
      out.push("\n");
      continue;
    }
    const block = BLOCK.has(tag);
    if (block) out.push(tag === "li" ? "\n- " : "\n\n");
    render(child, out);
    if (block) out.push("\n\n");
  }
}

function tidy(text: string): string {
  return text.split("\n").map((l) => l.trim()).join("\n").replace(/\n{3,}/g, "\n\n").trim();
}

export function extractPage(html: string, pageUrl: string): ExtractedPage {
  const { document } = parseHTML(html) as unknown as { document: DomDocument };
  const meta = (document.querySelector('meta[name="robots" i]')?.getAttribute("content") ?? "")
    .toLowerCase();
  const baseHref = document.querySelector("base[href]")?.getAttribute("href");
  let base: URL;
  try {
    base = new URL(baseHref ?? pageUrl, pageUrl);
  } catch {
    base = new URL(pageUrl);
  }
  const links: string[] = [];
  for (const a of document.querySelectorAll("a[href]")) {
    const rel = (a.getAttribute("rel") ?? "").toLowerCase();
    if (rel.split(/\s+/).includes("nofollow")) continue;
    try {
      const u = new URL(a.getAttribute("href") ?? "", base);
      if (u.protocol !== "http:" && u.protocol !== "https:") continue;
      u.hash = "";
      links.push(u.href);
    } catch {
      // An unparsable href is not a link.
    }
  }
  const root = (document.querySelector("main, article, [role=main]") ??
    document.querySelector("body") ?? document) as DomNode;
  const parts: string[] = [];
  render(root, parts);
  const title = squash(document.querySelector("title")?.textContent ?? "").trim() ||
    squash(document.querySelector("h1")?.textContent ?? "").trim();
  return {
    title,
    text: tidy(parts.join("")),
    links,
    noindex: meta.includes("noindex"),
    nofollow: meta.includes("nofollow"),
  };
}
