/**
 * Split a document into overlapping chunks on its structure: headings first,
 * then paragraphs, then sentences, so a chunk rarely cuts a thought in half.
 */

export interface TextChunk {
  /** Nearest heading above the chunk, for citations and the prompt. */
  heading: string;
  content: string;
}

const TARGET_CHARS = 1200;
const OVERLAP_CHARS = 200;

export function chunkText(text: string, maxChars = TARGET_CHARS): TextChunk[] {
  const sections = splitSections(text.replace(/\r\n?/g, "\n"));
  const chunks: TextChunk[] = [];
  for (const section of sections) {
    const units = section.body.split(/\n\s*\n/).flatMap((p) => splitLong(p.trim(), maxChars))
      .filter(Boolean);
    let current = "";
    for (const unit of units) {
      if (current && current.length + unit.length + 2 > maxChars) {
        chunks.push({ heading: section.heading, content: current });
        current = tail(current, OVERLAP_CHARS) + unit;
      } else {
        current = current ? `${current}\n\n${unit}` : unit;
      }
    }
    if (current.trim()) chunks.push({ heading: section.heading, content: current });
  }
  return chunks;
}

function splitSections(text: string): { heading: string; body: string }[] {
  const out: { heading: string; body: string }[] = [];
  let heading = "";
  let body: string[] = [];
  for (const line of text.split("\n")) {
    const m = /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (m) {
      if (body.join("").trim()) out.push({ heading, body: body.join("\n") });
      heading = m[1]!;
      body = [];
    } else {
      body.push(line);
    }
  }
  if (body.join("").trim()) out.push({ heading, body: body.join("\n") });
  return out;
}

/** Break an over-long paragraph on sentence ends, then hard at `max`. */
function splitLong(paragraph: string, max: number): string[] {
  if (paragraph.length <= max) return [paragraph];
  const sentences = paragraph.match(/[^.!?]+(?:[.!?]+["')\]]*\s*|$)/g) ?? [paragraph];
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

/** The last `n` characters, started at a word boundary, as overlap. */
function tail(text: string, n: number): string {
  if (text.length <= n) return text + "\n\n";
  const slice = text.slice(-n);
  const space = slice.indexOf(" ");
  return (space >= 0 ? slice.slice(space + 1) : slice) + "\n\n";
}
