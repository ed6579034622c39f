/**
 * What a widget stream holds (issue 25, item 3), from heap snapshots rather
 * than guesses: the server (`main.ts`, in its own process, embedded unless
 * DATABASE_URL is set) runs under the inspector; after a warm-up it is
 * snapshotted idle and again while N first messages are in flight, each
 * snapshot after two forced collections, and the objects are summed by kind.
 *
 * Two moments: `held` (every stream has had its first delta and waits for the
 * next fragment: the stub sends one every 4 s) and `burst` (BENCH_HEAP_BURST_MS
 * after N messages were sent at once, fragments 5 ms apart, as in the 5,000
 * stream run of `widget_stream`). RSS is read after the idle snapshot (taking
 * one leaves the process larger) and before the loaded one; the snapshots' own
 * buffers make RSS here a rough figure: the per-stream RSS of record is
 * `widget_stream`'s, without the inspector.
 * `BENCH_HEAP_STREAMS` (default 1,000), `BENCH_HEAP_MODE` (held | burst).
 */
import { startFakeAi } from "../tests/helpers/fake_ai.ts";
import { freePort, memoryOf, startBenchServer } from "./support.ts";

const N = Number(Deno.env.get("BENCH_HEAP_STREAMS") ?? "1000");
const MODE = Deno.env.get("BENCH_HEAP_MODE") ?? "held";
const BURST_MS = Number(Deno.env.get("BENCH_HEAP_BURST_MS") ?? "2500");

type Summary = Map<string, { count: number; bytes: number }>;

/** A minimal inspector client: one WebSocket, calls by id, snapshot chunks gathered. */
async function inspector(port: number) {
  const list = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const ws = new WebSocket(list[0].webSocketDebuggerUrl);
  await new Promise((r) => ws.onopen = r);
  let id = 0;
  const pending = new Map<number, (v: unknown) => void>();
  let chunks: string[] = [];
  ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.id && pending.has(m.id)) {
      pending.get(m.id)!(m.result);
      pending.delete(m.id);
    } else if (m.method === "HeapProfiler.addHeapSnapshotChunk") chunks.push(m.params.chunk);
  };
  const call = (method: string, params = {}) =>
    new Promise((resolve) => {
      const i = ++id;
      pending.set(i, resolve);
      ws.send(JSON.stringify({ id: i, method, params }));
    });
  await call("HeapProfiler.enable");
  return {
    async snapshot(): Promise<Summary> {
      await call("HeapProfiler.collectGarbage");
      await call("HeapProfiler.collectGarbage");
      chunks = [];
      await call("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
      const snap = JSON.parse(chunks.join(""));
      chunks = [];
      return summarise(snap);
    },
    close: () => ws.close(),
  };
}

/** Self sizes summed by node type and constructor name (strings and numbers together). */
function summarise(snap: {
  snapshot: { meta: { node_fields: string[]; node_types: string[][] } };
  nodes: number[];
  strings: string[];
}): Summary {
  const width = snap.snapshot.meta.node_fields.length;
  const types = snap.snapshot.meta.node_types[0]!;
  const out: Summary = new Map();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i]!]!;
    let name = snap.strings[snap.nodes[i + 1]!]!;
    if (type.includes("string")) name = "(strings)";
    else if (type === "number") name = "(numbers)";
    else if (name.length > 50) name = `${name.slice(0, 50)}…`;
    const key = `${type} ${name}`;
    const row = out.get(key) ?? { count: 0, bytes: 0 };
    row.count++;
    row.bytes += snap.nodes[i + 3]!;
    out.set(key, row);
  }
  return out;
}

export async function run(): Promise<string> {
  const stub = startFakeAi({
    reply: "Our support desk is open Monday to Friday, from nine to five, and replies " +
      "to every e-mail within one business day. Express shipping takes two days.",
  });
  stub.chunkDelayMs = MODE === "burst" ? 5 : 4000;
  const inspectPort = freePort();
  const server = await startBenchServer({
    aiBaseUrl: stub.baseUrl,
    flags: [`--inspect=127.0.0.1:${inspectPort}`],
    stderr: "null",
  });
  const base = server.base;
  let seq = 0;
  const open = async () => {
    const n = ++seq;
    const res = await fetch(`${base}/widget/acme-helper/stream`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-forwarded-for": `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
      },
      body: JSON.stringify({
        visitor_id: `v_heap_${n}`,
        message: "When are you open?",
        client_id: crypto.randomUUID(),
      }),
    });
    const reader = res.body!.getReader();
    let seen = "";
    while (!seen.includes("event: delta")) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    return reader;
  };
  try {
    const probe = await inspector(inspectPort);
    for (let i = 0; i < 20; i++) await (await open()).cancel();
    await new Promise((r) => setTimeout(r, 5000)); // the warm-up's background work settles
    const idle = await probe.snapshot();
    // After the first snapshot: taking one grows the process by its own buffers.
    const idleRss = (await memoryOf(server.process.pid)).rss;
    const streams = Promise.all(Array.from({ length: N }, () => open().catch(() => null)));
    if (MODE === "burst") await new Promise((r) => setTimeout(r, BURST_MS));
    else await streams;
    const loadedRss = (await memoryOf(server.process.pid)).rss;
    const loaded = await probe.snapshot();
    probe.close();
    for (const reader of MODE === "burst" ? [] : await streams) reader?.cancel().catch(() => {});
    await streams;
    let heapBytes = 0;
    const rows = [...loaded].map(([key, row]) => {
      const before = idle.get(key) ?? { count: 0, bytes: 0 };
      heapBytes += row.bytes - before.bytes;
      return { key, count: (row.count - before.count) / N, bytes: (row.bytes - before.bytes) / N };
    }).filter((r) => r.bytes > 50).sort((a, b) => b.bytes - a.bytes).slice(0, 25);
    const kb = (bytes: number) => (bytes / 1024).toFixed(2);
    const db = Deno.env.get("DATABASE_URL") ? "PostgreSQL" : "embedded PGlite";
    return [
      `## What a widget stream holds (${MODE}, ${N} streams, ${db})`,
      "",
      `RSS ${idleRss.toFixed(0)} → ${loadedRss.toFixed(0)} MiB: **${
        kb((loadedRss - idleRss) * 1024 * 1024 / N)
      } KB per stream**; live JavaScript heap after collection: **${
        kb(heapBytes / N)
      } KB per stream**.`,
      "",
      "| per stream (KB) | objects per stream | kind |",
      "|---|---|---|",
      ...rows.map((r) => `| ${kb(r.bytes)} | ${r.count.toFixed(1)} | ${r.key} |`),
    ].join("\n");
  } finally {
    await server.stop();
    await stub.close();
  }
}

if (import.meta.main) console.log(await run());
