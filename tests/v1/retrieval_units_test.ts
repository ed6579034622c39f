/**
 * Pure parts of knowledge: structural chunking with overlap, and reciprocal
 * rank fusion of the full-text and vector lists.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { chunkText } from "../../domain/knowledge/chunk_text.ts";
import { fuse } from "../../domain/knowledge/retrieve_chunks.ts";
import type { ChunkHit } from "../../db/knowledge.ts";

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

Deno.test("an over-long paragraph is split on sentence ends", () => {
  const sentence = "This sentence is about forty characters. ";
  const chunks = chunkText(sentence.repeat(100), 400);
  assertOk(chunks.length > 5);
  assertOk(chunks.every((c) => /characters\.$/.test(c.content.trim())));
});

Deno.test("reciprocal rank fusion favours chunks both searches found", () => {
  const hit = (id: number): ChunkHit => ({
    id,
    source_id: 1,
    source_title: "S",
    title: `t${id}`,
    url: null,
    content: `c${id}`,
    score: 0,
  });
  const fused = fuse([[hit(1), hit(2), hit(3)], [hit(3), hit(4)]]);
  // Equal fused scores (2 and 4, both second in one list) tie-break by id.
  assertEquals(fused.map((c) => c.id), [3, 1, 2, 4]);
  assertEquals(fuse([[hit(5)], []]).map((c) => c.id), [5]);
});
