/**
 * The SSE door on its own: framing, the keep-alive comment on long streams,
 * and a client disconnect aborting the producer's signal.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { sseFrame, sseResponse } from "../../routers/doors/sse.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("an event is framed as `event:` and one JSON `data:` line", () => {
  const text = new TextDecoder().decode(sseFrame("delta", { delta: "a\nb" }));
  assertEquals(text, 'event: delta\ndata: {"delta":"a\\nb"}\n\n');
});

Deno.test("a stream carries keep-alive comments while the producer works", async () => {
  const res = sseResponse(async (out) => {
    out.send("meta", { n: 1 });
    await sleep(120);
    out.send("done", { n: 2 });
  }, { keepAliveMs: 30 });
  assertEquals(res.status, 200);
  assertMatch(res.headers.get("content-type")!, /^text\/event-stream/);
  const text = await res.text();
  assertOk(text.startsWith('event: meta\ndata: {"n":1}\n\n'));
  assertOk(text.endsWith('event: done\ndata: {"n":2}\n\n'));
  assertOk((text.match(/^: keep-alive$/gm) ?? []).length >= 2, text);
});

Deno.test("a client disconnect aborts the producer's signal and drops later events", async () => {
  let aborted = false;
  let sentAfter: boolean | null = null;
  const finished = Promise.withResolvers<void>();
  const res = sseResponse(async (out, signal) => {
    out.send("meta", {});
    signal.addEventListener("abort", () => (aborted = true));
    await sleep(50);
    sentAfter = out.send("delta", { delta: "late" });
    finished.resolve();
  }, { keepAliveMs: 10_000 });
  const reader = res.body!.getReader();
  await reader.read();
  await reader.cancel();
  await finished.promise;
  assertEquals(aborted, true);
  assertEquals(sentAfter, false);
});
