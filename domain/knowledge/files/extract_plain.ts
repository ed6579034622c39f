/**
 * Text files: Markdown and plain text as they are (Markdown headings are
 * what the chunker splits on), HTML through the crawler's page reader
 * (headings kept as `#` lines), CSV as question/answer pairs when it has
 * those columns, else one paragraph per row.
 */
import { extractPage } from "../../crawl/extract_page.ts";
import { CSV_MAX_ROWS } from "../file_limits.ts";
import { type ExtractedFile, UnreadableFile } from "./unreadable_file.ts";

/** UTF-8 (a byte-order mark dropped), else Windows-1252; binary data is refused. */
export function decodeText(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    text = new TextDecoder("windows-1252").decode(bytes);
  }
  if (text.includes("\u0000")) {
    throw new UnreadableFile("The file is not text: it holds binary data.");
  }
  return text;
}

function nonEmpty(text: string, what: string): string {
  if (!/\p{L}|\p{N}/u.test(text)) throw new UnreadableFile(`The ${what} has no text.`);
  return text;
}

export function extractMarkdown(bytes: Uint8Array): ExtractedFile {
  return { kind: "text", text: nonEmpty(decodeText(bytes), "file") };
}

export function extractHtml(bytes: Uint8Array): ExtractedFile {
  const page = extractPage(decodeText(bytes), "http://upload.invalid/");
  return { kind: "text", text: nonEmpty(page.text, "HTML page") };
}

const QUESTION = /^(questions?|q|frage|pregunta|question_text|prompt)$/i;
const ANSWER = /^(answers?|a|antwort|respuesta|answer_text|reply|response)$/i;

/** Whether the CSV's header names a question and an answer column (a `qa` source). */
export function csvIsQa(text: string): boolean {
  const header = parseCsv(text.slice(0, 64 * 1024), 1)[0] ?? [];
  return header.some((h) => QUESTION.test(h.trim())) && header.some((h) => ANSWER.test(h.trim()));
}

export function extractCsv(bytes: Uint8Array): ExtractedFile {
  const rows = parseCsv(decodeText(bytes), CSV_MAX_ROWS + 1);
  const header = (rows.shift() ?? []).map((h) => h.trim());
  if (rows.length === 0) throw new UnreadableFile("The CSV file has no rows under its header.");
  const q = header.findIndex((h) => QUESTION.test(h));
  const a = header.findIndex((h) => ANSWER.test(h));
  if (q >= 0 && a >= 0) {
    const pairs = rows.map((r) => ({ question: (r[q] ?? "").trim(), answer: (r[a] ?? "").trim() }))
      .filter((p) => p.question && p.answer);
    if (!pairs.length) {
      throw new UnreadableFile("The CSV file has no row with both a question and an answer.");
    }
    return { kind: "qa", pairs };
  }
  const text = rows.map((r) =>
    r.map((cell, i) => cell.trim() ? `${header[i] || `Column ${i + 1}`}: ${cell.trim()}` : "")
      .filter(Boolean).join("\n")
  ).filter(Boolean).join("\n\n");
  return { kind: "text", text: nonEmpty(text, "CSV file") };
}

/**
 * RFC 4180 rows (quoted fields with doubled quotes and line breaks), with
 * the delimiter the header uses most: comma, semicolon or tab.
 */
export function parseCsv(text: string, maxRows: number): string[][] {
  const src = text.replace(/^\uFEFF/, "");
  const firstLine = src.slice(0, src.indexOf("\n") >>> 0);
  const delimiter = [",", ";", "\t"].map((d) => [d, firstLine.split(d).length] as const)
    .sort((x, y) => y[1] - x[1])[0]![0];
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < src.length && rows.length < maxRows; i++) {
    const c = src[i]!;
    if (quoted) {
      if (c === '"' && src[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === "") quoted = true;
    else if (c === delimiter) {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && src[i + 1] === "\n") i++;
      row.push(field);
      field = "";
      if (row.some((f) => f !== "")) rows.push(row);
      row = [];
    } else field += c;
  }
  if ((field !== "" || row.length) && rows.length < maxRows) {
    row.push(field);
    if (row.some((f) => f !== "")) rows.push(row);
  }
  return rows;
}
