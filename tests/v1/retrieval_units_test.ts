/**
 * Pure parts of knowledge: structural chunking with heading paths and
 * overlap, score-aware fusion of the full-text and vector lists, and the
 * per-source diversity of what is offered to the prompt.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { chunkText, chunkTitle } from "../../domain/knowledge/chunk_text.ts";
import { diversify, fuse } from "../../domain/knowledge/retrieve_chunks.ts";
import type { ChunkHit } from "../../db/knowledge.ts";
import {
  chunksWithinBudget as fitChunks,
  knowledgePassages,
} from "../../domain/ai/knowledge_block.ts";
import { estimateTokens } from "../../domain/ai/token_budget.ts";

Deno.test("chunking follows headings, then paragraphs, with overlap between chunks", () => {
  const para = (w: string) => Array.from({ length: 60 }, () => w).join(" ") + ".";
  const text = `# Alpha\n${para("apple")}\n\n${para("apricot")}\n\n# Beta\nShort beta text.`;
  const chunks = chunkText(text, 500);
  assertEquals(chunks.map((c) => c.heading), ["Alpha", "Alpha", "Beta"]);
  assertOk(chunks[0]!.content.startsWith("apple"));
  assertOk(chunks[1]!.content.includes("apple"), "the second chunk overlaps the first");
  assertOk(chunks[1]!.content.includes("apricot"));
  assertEquals(chunks[2]!.content, "Short beta text.");
  assertOk(chunks.every((c) => c.content.length <= 500 + 220));
});

Deno.test("each chunk carries its whole heading path; # lines in code are not headings", () => {
  const text = [
    "# Albums",
    "Intro.",
    "## Rename album",
    "### On mobile",
    "Tap rename.",
    "```",
    "# not a heading",
    "```",
    "## Share album",
    "Tap share.",
  ].join("\n\n");
  const chunks = chunkText(text);
  assertEquals(chunks.map((c) => c.heading), [
    "Albums",
    "Albums › Rename album › On mobile",
    "Albums › Share album",
  ]);
  assertOk(chunks[1]!.content.includes("# not a heading"));
  assertEquals(chunkTitle("Albums", chunks[1]!.path), "Albums — Rename album › On mobile");
  assertEquals(chunkTitle("Guide", ["Albums"]), "Guide — Albums");
  assertEquals(chunkTitle("Albums", ["Albums"]), "Albums");
});

Deno.test("a long table or list is cut between its lines", () => {
  const table = Array.from({ length: 40 }, (_, i) => `| row ${i} | some value here |`).join("\n");
  const chunks = chunkText(table, 300);
  assertOk(chunks.length > 3);
  for (const c of chunks) {
    const lines = c.content.split("\n").filter(Boolean);
    assertOk(lines.every((l) => /^\| row \d+ \| some value here \|$/.test(l)), c.content);
  }
});

Deno.test("an over-long paragraph is split on sentence ends", () => {
  const sentence = "This sentence is about forty characters. ";
  const chunks = chunkText(sentence.repeat(100), 400);
  assertOk(chunks.length > 5);
  assertOk(chunks.every((c) => /characters\.$/.test(c.content.trim())));
});

const hit = (id: number, score: number, sourceId = 1): ChunkHit => ({
  id,
  source_id: sourceId,
  source_title: `S${sourceId}`,
  ordinal: id,
  title: `t${id}`,
  url: null,
  content: `c${id}`,
  score,
});

Deno.test("fusion: no vector-only chunk outranks a strong full-text match", () => {
  // Full-text: BM25 scores; vectors: cosine similarities, the best ones on chunks full-text missed.
  const text = [hit(1, 9), hit(2, 8), hit(3, 7), hit(4, 6), hit(5, 5)];
  const vector = [hit(10, 1), hit(11, 0.99), hit(12, 0.98), hit(13, 0.97), hit(3, 0.5)];
  const ids = fuse(text, vector).map((c) => c.id);
  assertEquals(
    ids.slice(0, 5),
    [1, 3, 2, 4, 5],
    "full-text first; vectors reorder only close ones",
  );
  assertEquals(ids.slice(5), [10, 11, 12, 13]);
});

Deno.test("fusion: without full-text matches the vector ranking stands; unrelated stays out", () => {
  assertEquals(fuse([], [hit(7, 0.9), hit(8, 0.8)]).map((c) => c.id), [7, 8]);
  // Far below the best (under a tenth of its score): noise, not knowledge.
  assertEquals(fuse([hit(1, 10), hit(2, 0.5)], []).map((c) => c.id), [1]);
  assertEquals(fuse([], []), []);
});

Deno.test("diversity: a source's later chunks count less, so another source gets in", () => {
  const many = [hit(1, 10), hit(2, 9.9), hit(3, 9.8), hit(4, 9.7), hit(5, 9.6)];
  const other = hit(9, 7, 2);
  const order = diversify(fuse([...many, other], [])).map((c) => c.id);
  assertOk(order.indexOf(9) < 4, `source 2 should not wait behind all of source 1: ${order}`);
  assertEquals(order.filter((id) => id !== 9), [1, 2, 3, 4, 5], "each source keeps its order");
});

Deno.test("passages: neighbours join in reading order, and the block stays within its budget", () => {
  const chunk = (sourceId: number, ordinal: number, heading: string, content: string) => ({
    id: sourceId * 100 + ordinal,
    sourceId,
    sourceTitle: `Doc ${sourceId}`,
    ordinal,
    title: heading ? `Doc ${sourceId} — ${heading}` : `Doc ${sourceId}`,
    url: null,
    content,
    score: 1,
  });
  // Ranked: a seed, another source, then the seed's neighbours after and before it.
  const ranked = [
    chunk(1, 5, "Steps", "Open the menu."),
    chunk(2, 0, "", "Unrelated."),
    chunk(1, 6, "Steps › On mobile", "Tap the dots."),
    chunk(1, 4, "Steps", "Before you start."),
  ];
  assertEquals(
    knowledgePassages(fitChunks(ranked, 1000)),
    "[1] Doc 1 — Steps\nBefore you start.\nOpen the menu.\nSteps › On mobile\nTap the dots." +
      "\n\n[2] Doc 2\nUnrelated.",
  );
  // Whatever mix of lone and joined chunks, what is shown never costs more than was charged.
  const words = "lorem ipsum dolor sit amet consectetur adipiscing elit".split(" ");
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let round = 0; round < 200; round++) {
    const many = Array.from({ length: 40 }, () => {
      const text = Array.from(
        { length: 5 + Math.floor(next() * 80) },
        () => words[Math.floor(next() * words.length)],
      ).join(" ");
      return chunk(
        1 + Math.floor(next() * 4),
        Math.floor(next() * 12),
        `H${Math.floor(next() * 3)}`,
        text,
      );
    }).filter((c, i, all) => all.findIndex((o) => o.id === c.id) === i);
    const budget = 50 + Math.floor(next() * 400);
    const fitted = fitChunks(many, budget);
    assertOk(estimateTokens(knowledgePassages(fitted)) <= budget, `round ${round}`);
  }
});
