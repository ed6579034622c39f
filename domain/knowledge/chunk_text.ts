/**
 * Split a document into chunks on its structure: every Markdown heading opens
 * a section, sections are cut into paragraphs, then lines, then sentences, so
 * a chunk rarely cuts a thought in half and never spans two sections. Each
 * chunk keeps the whole heading path above it ("Albums › Rename album › On
 * mobile"), which is searched with it and shown in the prompt: a passage
 * under "On mobile" is meaningless without the section it belongs to.
 */

export interface TextChunk {
  /** The heading path above the chunk, joined with " › " ("" before any heading). */
  heading: string;
  /** The same path, outermost heading first. */
  path: string[];
  content: string;
}

/** About 250 tokens: several passages from different sources fit the prompt's budget. */
const TARGET_CHARS = 1000;
const OVERLAP_CHARS = 150;
export const PATH_SEPARATOR = " › ";

export function chunkText(text: string, maxChars = TARGET_CHARS): TextChunk[] {
  const chunks: TextChunk[] = [];
  for (const section of splitSections(text.replace(/\r\n?/g, "\n"))) {
    const heading = section.path.join(PATH_SEPARATOR);
    const units = section.body.split(/\n\s*\n/).flatMap((p) => splitLong(p.trim(), maxChars))
      .filter(Boolean);
    let current = "";
    for (const unit of units) {
      if (current && current.length + unit.length + 2 > maxChars) {
        chunks.push({ heading, path: section.path, content: current });
        current = tail(current, OVERLAP_CHARS) + unit;
      } else {
        current = current ? `${current}\n\n${unit}` : unit;
      }
    }
    if (current.trim()) chunks.push({ heading, path: section.path, content: current });
  }
  return chunks;
}

const HEADING = /^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$/;
const FENCE = /^\s{0,3}(```|~~~)/;

/** Sections with their heading path; `#` lines inside fenced code are not headings. */
function splitSections(text: string): { path: string[]; body: string }[] {
  const out: { path: string[]; body: string }[] = [];
  const stack: { level: number; text: string }[] = [];
  let body: string[] = [];
  let inFence = false;
  const flush = () => {
    if (body.join("").trim()) out.push({ path: stack.map((h) => h.text), body: body.join("\n") });
    body = [];
  };
  for (const line of text.split("\n")) {
    if (FENCE.test(line)) inFence = !inFence;
    const m = inFence ? null : HEADING.exec(line);
    if (!m) {
      body.push(line);
      continue;
    }
    flush();
    const level = m[1]!.length;
    while (stack.length && stack.at(-1)!.level >= level) stack.pop();
    stack.push({ level, text: m[2]!.replace(/`|\*\*/g, "").trim() });
  }
  flush();
  return out;
}

/** Break an over-long paragraph on lines (lists, tables), then sentence ends, then hard at `max`. */
function splitLong(paragraph: string, max: number): string[] {
  if (paragraph.length <= max) return [paragraph];
  const out: string[] = [];
  let cur = "";
  for (const line of paragraph.split("\n")) {
    if (cur && cur.length + line.length + 1 > max) {
      out.push(cur.trim());
      cur = "";
    }
    if (line.length > max) out.push(...splitSentences(line, max));
    else cur = cur ? `${cur}\n${line}` : line;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

function splitSentences(text: string, max: number): string[] {
  const sentences = text.match(/[^.!?]+(?:[.!?]+["')\]]*\s*|$)/g) ?? [text];
  const out: string[] = [];
  let cur = "";
  for (const s of sentences) {
    if (cur && cur.length + s.length > max) {
      out.push(cur.trim());
      cur = "";
    }
    if (s.length > max) {
      for (let i = 0; i < s.length; i += max) out.push(s.slice(i, i + max).trim());
    } else {
      cur += s;
    }
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** The last `n` characters as overlap, started at a line (list, table row) or else a word. */
function tail(text: string, n: number): string {
  if (text.length <= n) return text + "\n\n";
  const slice = text.slice(-n);
  const line = slice.indexOf("\n");
  if (line >= 0) return slice.slice(line + 1).trimStart() + "\n\n";
  const space = slice.indexOf(" ");
  return (space >= 0 ? slice.slice(space + 1) : slice) + "\n\n";
}

/**
 * "Albums — Rename album › On mobile": the document's title and the heading
 * path, searched and shown with the chunk. A top heading that repeats the
 * title is not said twice.
 */
export function chunkTitle(title: string, path: string[]): string {
  const norm = (s: string) => s.trim().toLowerCase();
  const rest = path.length && norm(path[0]!) === norm(title) ? path.slice(1) : path;
  return rest.length ? `${title} — ${rest.join(PATH_SEPARATOR)}` : title;
}
