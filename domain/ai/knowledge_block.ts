/**
 * The KNOWLEDGE block of a prompt: the retrieved chunks that fit the budget,
 * shown as passages. Chunks of one source that follow each other in the text
 * (a seed and its neighbours, see retrieve_chunks.ts) are joined into one
 * passage in reading order: the first under its full title (document title and
 * heading path, as a lone chunk is shown), each next one under its heading
 * path alone, and under none when that is the one before it. A chunk's full
 * title repeated for every chunk cost about a quarter of the budget; joined,
 * the same budget carries more of the text that answers.
 */
import type { RetrievedChunk } from "../knowledge/retrieve_chunks.ts";
import { estimateTokens } from "./token_budget.ts";

/** A passage's separator and number ("[3] "). */
const PASSAGE_OVERHEAD = 4;
/** The line breaks around a joined chunk, and a token of rounding. */
const CHUNK_OVERHEAD = 2;

/**
 * The chunks that fit `budget` tokens, best first; what the prompt really
 * used. A chunk is charged as the block will show it: with its full title when
 * it opens a passage, with its heading path when it joins a chunk already
 * taken (the same characters when it joins in front of a passage's first
 * chunk, which then shows its heading path instead; joining two passages
 * later only saves). A chunk too large
 * for what is left is skipped, not the end: smaller ones after it still fill
 * the budget.
 */
export function chunksWithinBudget(chunks: RetrievedChunk[], budget: number): RetrievedChunk[] {
  const out: RetrievedChunk[] = [];
  const placed = new Set<string>();
  let used = 0;
  for (const c of chunks) {
    const joins = placed.has(place(c.sourceId, c.ordinal - 1)) ||
      placed.has(place(c.sourceId, c.ordinal + 1));
    const cost = estimateTokens(c.content) +
      (joins
        ? estimateTokens(headingOf(c)) + CHUNK_OVERHEAD
        : estimateTokens(c.title) + PASSAGE_OVERHEAD);
    if (used + cost > budget) continue;
    out.push(c);
    placed.add(place(c.sourceId, c.ordinal));
    used += cost;
  }
  return out;
}

/**
 * The fitted chunks as numbered passages: runs of consecutive chunks of one
 * source, ordered by the rank of their best chunk.
 */
export function knowledgePassages(fitted: RetrievedChunk[]): string {
  const rank = new Map(fitted.map((c, i) => [c.id, i]));
  const bySource = new Map<number, RetrievedChunk[]>();
  for (const c of fitted) bySource.set(c.sourceId, [...(bySource.get(c.sourceId) ?? []), c]);
  const passages: { best: number; chunks: RetrievedChunk[] }[] = [];
  for (const chunks of bySource.values()) {
    chunks.sort((a, b) => a.ordinal - b.ordinal);
    let run: RetrievedChunk[] = [];
    for (const c of chunks) {
      if (run.length && c.ordinal !== run.at(-1)!.ordinal + 1) {
        passages.push({ best: Math.min(...run.map((r) => rank.get(r.id)!)), chunks: run });
        run = [];
      }
      run.push(c);
    }
    if (run.length) {
      passages.push({ best: Math.min(...run.map((r) => rank.get(r.id)!)), chunks: run });
    }
  }
  passages.sort((a, b) => a.best - b.best);
  return passages.map((p, i) => `[${i + 1}] ${render(p.chunks)}`).join("\n\n");
}

function render(run: RetrievedChunk[]): string {
  const [first, ...rest] = run;
  const parts = [`${first!.title}\n${first!.content}`];
  let heading = headingOf(first!);
  for (const c of rest) {
    const h = headingOf(c);
    parts.push(h && h !== heading ? `${h}\n${c.content}` : c.content);
    heading = h;
  }
  return parts.join("\n");
}

/**
 * The chunk's heading path without its source's title ("Albums — Rename album
 * › On mobile" under "Albums" is "Rename album › On mobile"), or its whole
 * title when that is not its source's (a Q&A entry, a crawled page).
 */
function headingOf(c: RetrievedChunk): string {
  if (c.title === c.sourceTitle) return "";
  const prefix = `${c.sourceTitle} — `;
  return c.title.startsWith(prefix) ? c.title.slice(prefix.length) : c.title;
}

function place(sourceId: number, ordinal: number): string {
  return `${sourceId}:${ordinal}`;
}
