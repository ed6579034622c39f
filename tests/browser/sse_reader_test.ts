/**
 * The widget's SSE reader: events come out whole and in order however the
 * network splits the bytes, with CRLF line ends, comments and multi-line
 * data handled as the EventSource format says.
 */
import { assertEquals } from "../helpers/assert.ts";
import { readSse, type SseEvent } from "../../widget/src/sse.ts";

function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const chunk of chunks) c.enqueue(typeof chunk === "string" ? enc.encode(chunk) : chunk);
      c.close();
    },
  });
}

async function read(chunks: (string | Uint8Array)[]): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  await readSse(streamOf(chunks), (e) => out.push(e));
  return out;
}

const WIRE =
  'event: meta\ndata: {"a":1}\n\n: keep-alive\n\nevent: delta\ndata: {"delta":"Hé"}\n\n' +
  'event: done\ndata: {"message_id":7}\n\n';
const EXPECTED = [
  { event: "meta", data: '{"a":1}' },
  { event: "delta", data: '{"delta":"Hé"}' },
  { event: "done", data: '{"message_id":7}' },
];

Deno.test("events arrive whole and in order at every split point, comments skipped", async () => {
  const bytes = new TextEncoder().encode(WIRE);
  for (let cut = 1; cut < bytes.length; cut++) {
    // Split on bytes, so a cut can fall inside the two-byte "é" too.
    assertEquals(await read([bytes.slice(0, cut), bytes.slice(cut)]), EXPECTED, `cut at ${cut}`);
  }
});

Deno.test("CRLF line ends, even split between reads, frame events like LF", async () => {
  const crlf = WIRE.replace(/\n/g, "\r\n");
  for (let cut = 1; cut < crlf.length; cut++) {
    assertEquals(await read([crlf.slice(0, cut), crlf.slice(cut)]), EXPECTED, `cut at ${cut}`);
  }
});

Deno.test("multi-line data is joined with newlines; a last event without blank line counts", async () => {
  assertEquals(await read(["data: one\ndata: two\n\nevent: error\ndata: {}"]), [
    { event: "message", data: "one\ntwo" },
    { event: "error", data: "{}" },
  ]);
});
