/**
 * The provider's event stream parser (domain/ai/chat_stream.ts) pauses for one
 * event-loop turn after the first visible delta, so that the visitor's frame is
 * written before the rest of a burst is parsed and the reply is stored: the
 * server writes a response chunk only when our JavaScript yields. What this
 * checks, on a whole reply arriving in one read: a timer set while the first
 * delta is handed on runs before the second delta is, and every event still
 * arrives once, in order.
 */
import { assertEquals } from "../helpers/assert.ts";
import { readChatStream } from "../../domain/ai/chat_stream.ts";

function burst(pieces: string[]): Response {
  const events =
    pieces.map((p) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: p } }] })}\n\n`
    ).join("") + "data: [DONE]\n\n";
  const bytes = new TextEncoder().encode(events);
  return new Response(
    new ReadableStream({
      start(c) {
        c.enqueue(bytes); // the whole reply in one read, as one packet brings it
        c.close();
      },
    }),
  );
}

Deno.test("the first delta is handed on a turn before the rest of its packet", async () => {
  const seen: string[] = [];
  await readChatStream(burst(["a", "b", "c"]), new AbortController().signal, (chunk) => {
    const text = chunk.choices[0]!.delta.content!;
    seen.push(text);
    if (text === "a") setTimeout(() => seen.push("(turn)"), 0);
    return text === "a";
  });
  assertEquals(seen, ["a", "(turn)", "b", "c"]);
});

Deno.test("without a pause asked, a packet's events are handed on in one go", async () => {
  const seen: string[] = [];
  await readChatStream(burst(["a", "b"]), new AbortController().signal, (chunk) => {
    const text = chunk.choices[0]!.delta.content!;
    seen.push(text);
    if (text === "a") setTimeout(() => seen.push("(turn)"), 0);
  });
  assertEquals(seen.slice(0, 2), ["a", "b"]);
});
