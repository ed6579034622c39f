/**
 * PDF text with unpdf (a serverless build of Mozilla's PDF.js). A PDF has no
 * headings, only text drawn at sizes: lines set larger than the body text
 * become Markdown headings (the three largest sizes: `#`, `##`, `###`), so the
 * chunker keeps each section's passages together under its heading path.
 * Encrypted and image-only PDFs are refused with the reason.
 */
import { getDocumentProxy } from "unpdf";
import { PDF_MAX_PAGES } from "../file_limits.ts";
import { type ExtractedFile, UnreadableFile } from "./unreadable_file.ts";

interface Line {
  text: string;
  size: number;
  y: number;
}

interface TextItemLike {
  str?: string;
  transform?: number[];
  height?: number;
  hasEOL?: boolean;
}

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

export async function extractPdf(bytes: Uint8Array): Promise<ExtractedFile> {
  const pdf = await openPdf(bytes);
  try {
    if (pdf.numPages > PDF_MAX_PAGES) {
      throw new UnreadableFile(
        `The PDF has ${pdf.numPages} pages; Parley reads at most ${PDF_MAX_PAGES} from one ` +
          "file. Split it into smaller files.",
      );
    }
    const pages: Line[][] = [];
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      pages.push(linesOf(content.items as TextItemLike[]));
      page.cleanup();
      // PDF.js parses on this thread: a turn of the event loop per page lets
      // requests in between (about 5 ms of parsing a page, not a 500-page block).
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    dropRunningLines(pages);
    const lines = pages.flat();
    if (lines.every((l) => !/\p{L}|\p{N}/u.test(l.text))) {
      throw new UnreadableFile(
        "The PDF has no text layer (it looks like a scan or images of text). Parley reads " +
          "the text of a PDF, not pictures of it: run it through OCR first, or upload the text.",
      );
    }
    return { kind: "text", text: toMarkdown(pages, headingLevels(lines)), pages: pdf.numPages };
  } finally {
    await pdf.loadingTask.destroy().catch(() => {});
  }
}

async function openPdf(bytes: Uint8Array): Promise<PdfDocument> {
  try {
    // A copy: PDF.js takes ownership of (detaches) the buffer it is given.
    return await getDocumentProxy(new Uint8Array(bytes), {
      verbosity: 0,
      stopAtErrors: true,
    });
  } catch (err) {
    const name = (err as { name?: string }).name;
    if (name === "PasswordException") {
      throw new UnreadableFile(
        "The PDF is encrypted with a password, so its text cannot be read. Save a copy " +
          "without a password and upload that.",
      );
    }
    throw new UnreadableFile(
      `The file is not a readable PDF (${
        ((err as Error).message || name || "damaged").replace(/\.$/, "")
      }).`,
    );
  }
}

/** Items joined into lines (PDF.js marks line ends; a change of baseline is one too). */
function linesOf(items: TextItemLike[]): Line[] {
  const lines: Line[] = [];
  let text = "";
  let size = 0;
  let y = 0;
  const flush = () => {
    const t = text.replace(/\s+/g, " ").trim();
    if (t) lines.push({ text: t, size: Math.round(size * 10) / 10, y });
    text = "";
    size = 0;
  };
  for (const item of items) {
    if (typeof item.str !== "string") continue;
    const t = item.transform ?? [1, 0, 0, 1, 0, 0];
    const itemSize = Math.hypot(t[2] ?? 0, t[3] ?? 0) || item.height || 0;
    const itemY = t[5] ?? 0;
    if (text && Math.abs(itemY - y) > Math.max(size, itemSize) * 0.5) flush();
    if (item.str.trim()) {
      if (!text) y = itemY;
      size = Math.max(size, itemSize);
    }
    text += item.str;
    if (item.hasEOL) flush();
  }
  flush();
  return lines;
}

/**
 * Running headers and footers ("Kettle manual — page 7"): a line found, its
 * digits aside, on at least 60% of three or more pages is dropped from every
 * page, so it neither splits paragraphs nor fills passages.
 */
function dropRunningLines(pages: Line[][]): void {
  if (pages.length < 3) return;
  const key = (l: Line) => l.text.replace(/\d+/g, "#");
  const onPages = new Map<string, number>();
  for (const lines of pages) {
    for (const k of new Set(lines.map(key))) onPages.set(k, (onPages.get(k) ?? 0) + 1);
  }
  const running = new Set(
    [...onPages].filter(([, n]) => n >= pages.length * 0.6).map(([k]) => k),
  );
  if (running.size === 0) return;
  for (let i = 0; i < pages.length; i++) pages[i] = pages[i]!.filter((l) => !running.has(key(l)));
}

/** Font sizes that mark headings: clearly above the body's (the most used, by characters). */
function headingLevels(lines: Line[]): Map<number, number> {
  const chars = new Map<number, number>();
  for (const l of lines) chars.set(l.size, (chars.get(l.size) ?? 0) + l.text.length);
  const body = [...chars.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
  const larger = [...chars.keys()].filter((s) => s >= body * 1.15).sort((a, b) => b - a);
  return new Map(larger.slice(0, 3).map((s, i) => [s, i + 1]));
}

function toMarkdown(pages: Line[][], levels: Map<number, number>): string {
  const out: string[] = [];
  for (const lines of pages) {
    let prev: Line | null = null;
    for (const line of lines) {
      const level = line.text.length <= 150 ? levels.get(line.size) : undefined;
      if (level) {
        // A heading set on two lines stays one heading.
        const last = out.at(-1);
        if (prev && levels.get(prev.size) === level && last?.startsWith("#")) {
          out[out.length - 1] = `${last} ${line.text}`;
        } else {
          out.push("", `${"#".repeat(level)} ${line.text}`, "");
        }
      } else {
        // A gap wider than a line and a half starts a new paragraph.
        const gap = prev ? Math.abs(prev.y - line.y) : 0;
        if (prev && gap > line.size * 1.8) out.push("");
        out.push(line.text);
      }
      prev = line;
    }
    out.push("");
  }
  return out.join("\n").replace(/\n{3,}/g, "\n\n").trim();
}
