/**
 * Word (.docx) text: the package is a zip (read with fflate) whose
 * word/document.xml holds the paragraphs. A paragraph whose style is a
 * heading (by the style's name, "heading 1" …, or its outline level) becomes
 * a Markdown heading, list items become `- ` lines and table rows one line
 * each, so the chunker keeps sections whole. (mammoth, the usual reader,
 * needs `--unsafe-proto` under Deno: its promise library assigns
 * `Object.prototype.__proto__`.)
 */
import { unzipSync } from "fflate";
import { type ExtractedFile, UnreadableFile } from "./unreadable_file.ts";

const decoder = new TextDecoder();

export function extractDocx(bytes: Uint8Array): ExtractedFile {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      filter: (f) => f.name === "word/document.xml" || f.name === "word/styles.xml",
    });
  } catch (err) {
    throw new UnreadableFile(
      `The file is not a readable Word document: its .docx package is damaged (${
        (err as Error).message
      }).`,
    );
  }
  const document = files["word/document.xml"];
  if (!document) {
    throw new UnreadableFile(
      "The file is not a Word document: its package has no word/document.xml.",
    );
  }
  const styles = headingStyles(
    files["word/styles.xml"] ? decoder.decode(files["word/styles.xml"]) : "",
  );
  const text = paragraphs(decoder.decode(document), styles);
  if (!/\p{L}|\p{N}/u.test(text)) throw new UnreadableFile("The Word document has no text.");
  return { kind: "text", text };
}

/** Heading level (1–6) of each paragraph style id that is a heading. */
function headingStyles(xml: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of xml.matchAll(/<w:style\b[^>]*w:styleId="([^"]+)"[^>]*>([\s\S]*?)<\/w:style>/g)) {
    const id = m[1]!;
    const body = m[2]!;
    const name = /<w:name w:val="([^"]+)"/.exec(body)?.[1]?.toLowerCase() ?? "";
    const byName = /^heading (\d)$/.exec(name)?.[1];
    const outline = /<w:outlineLvl w:val="(\d)"/.exec(body)?.[1];
    const level = name === "title"
      ? 1
      : byName
      ? Number(byName)
      : outline
      ? Number(outline) + 1
      : 0;
    if (level >= 1 && level <= 6) out.set(id, level);
  }
  return out;
}

function paragraphs(xml: string, styles: Map<string, number>): string {
  const out: string[] = [];
  const body = xml.replace(/<w:tr\b[^>]*>([\s\S]*?)<\/w:tr>/g, (_row, cells: string) =>
    // A table row reads as one line of its cells.
    `<w:p>${
      [...cells.matchAll(/<w:tc\b[^>]*>([\s\S]*?)<\/w:tc>/g)]
        .map((c) =>
          `<w:r><w:t>${runsText(c[1]!).replace(/&/g, "&amp;").replace(/</g, "&lt;")}</w:t></w:r>`
        )
        .join("<w:r><w:t> | </w:t></w:r>")
    }</w:p>`);
  for (const m of body.matchAll(/<w:p\b[^>]*?(?:\/>|>([\s\S]*?)<\/w:p>)/g)) {
    const inner = m[1] ?? "";
    const text = runsText(inner).trim();
    if (!text) continue;
    const style = /<w:pStyle w:val="([^"]+)"/.exec(inner)?.[1];
    const outline = /<w:outlineLvl w:val="(\d)"/.exec(inner)?.[1];
    const level = (style ? styles.get(style) : undefined) ??
      (outline ? Number(outline) + 1 : undefined) ??
      (style && /^heading(\d)$/i.test(style) ? Number(style.slice(-1)) : undefined);
    if (level) out.push("", `${"#".repeat(Math.min(level, 6))} ${text}`, "");
    else if (/<w:numPr>/.test(inner)) out.push(`- ${text}`);
    else out.push(text, "");
  }
  return out.join("\n").replace(/\n{3,}/g, "\n\n").trim();
}

/** The text of a paragraph's runs: `w:t`, tabs and breaks. */
function runsText(xml: string): string {
  let text = "";
  for (const m of xml.matchAll(/<w:t\b[^>]*>([^<]*)<\/w:t>|<w:(tab|br|cr)\b[^>]*\/>/g)) {
    if (m[1] !== undefined) text += unescapeXml(m[1]);
    else text += m[2] === "tab" ? "\t" : "\n";
  }
  return text;
}

function unescapeXml(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_all, e: string) => {
    if (e[0] === "#") {
      const code = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : Number(e.slice(1));
      return Number.isFinite(code) ? String.fromCodePoint(code) : "";
    }
    return { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }[e.toLowerCase()] ?? "";
  });
}
