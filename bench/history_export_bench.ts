/**
 * Conversation history (issue 23): the CSV export of 100,000 conversations
 * streams in flat memory, and a page of the list (plain, filtered, searched
 * for a rare and a common word) stays quick, on a workspace of 100,000
 * conversations and 300,000 messages (the agent inbox bench's fill).
 *
 * Memory is the server process's resident set (the server runs in this
 * process, embedded database included), sampled every 20 ms while the export
 * is read and thrown away. Flat means the growth during an export of about
 * 8,600 rows and one of 100,000 are alike. Beside it, in the same run, the
 * alternative the streamed export replaces: the same 100,000 rows read in one
 * query and joined into one string (run last, since it grows the heap).
 */
import { startTestServer, type TestServer } from "../tests/helpers/test_server.ts";
import { fillForBench } from "./agent_inbox_bench.ts";
import { dashboardSeed } from "../tests/dashboard/dashboard_seed.ts";
import { D } from "../tests/dashboard/dashboard_seed.ts";
import { percentile, realPostgresUrl, timeRequests, withDatabase } from "./support.ts";
import { exportBatch } from "../db/conversation_history.ts";
import { csvLine } from "../domain/history/csv.ts";

const SAMPLES = Number(Deno.env.get("BENCH_SAMPLES") ?? "40");
const MiB = 1024 * 1024;
const rss = () => Deno.memoryUsage().rss / MiB;
const gc = (globalThis as { gc?: () => void }).gc;
/** The live JS heap: what is still referenced after a full collection (needs --expose-gc). */
const liveHeap = () => {
  gc?.();
  return Deno.memoryUsage().heapUsed / MiB;
};

interface ExportRun {
  rows: number;
  bytes: number;
  seconds: number;
  before: number;
  peak: number;
  liveBefore: number;
  livePeak: number;
}

/** Reads the export at `query`, counting lines, while sampling RSS. */
async function measureExport(
  s: TestServer,
  query: string,
  sampleLive: boolean,
): Promise<ExportRun> {
  const liveBefore = liveHeap();
  let livePeak = liveBefore;
  const before = rss();
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, rss())), 20);
  const t0 = performance.now();
  const res = await fetch(`${s.url}/api/dashboard/conversations/export?${query}`, {
    headers: { authorization: `Bearer ${D.acme.owner}` },
  });
  if (!res.ok) throw new Error(`export: HTTP ${res.status} ${await res.text()}`);
  let bytes = 0;
  let lines = 0;
  let chunks = 0;
  for await (const chunk of res.body!) {
    if (sampleLive && ++chunks % 10 === 0) livePeak = Math.max(livePeak, liveHeap());
    bytes += chunk.length;
    for (const b of chunk) if (b === 10) lines++;
    peak = Math.max(peak, rss());
  }
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(timer);
  return { rows: lines - 1, bytes, seconds, before, peak, liveBefore, livePeak };
}

/** The alternative: every row in one result, the file built as one string. */
async function measureWhole(s: TestServer): Promise<ExportRun> {
  const liveBefore = liveHeap();
  const before = rss();
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, rss())), 20);
  const t0 = performance.now();
  const [ws] = await s.deps.sql<{ id: number }[]>`SELECT id FROM workspaces WHERE slug = 'acme'`;
  const rows = await exportBatch(s.deps.sql, ws!.id, {}, null, 1_000_000);
  peak = Math.max(peak, rss());
  let livePeak = liveHeap();
  let text = "";
  for (const r of rows) {
    text += csvLine([r.public_id, r.bot_name, r.status, r.visitor_id, r.first_message]);
  }
  peak = Math.max(peak, rss());
  const seconds = (performance.now() - t0) / 1000;
  livePeak = Math.max(livePeak, liveHeap());
  clearInterval(timer);
  return { rows: rows.length, bytes: text.length, seconds, before, peak, liveBefore, livePeak };
}

const day = (offset: number) =>
  new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

async function measure(label: string): Promise<string> {
  const s = await startTestServer({
    seed: dashboardSeed(),
    env: { LOG_LEVEL: "error", SLA_CHECK_SECONDS: "3600" },
  });
  try {
    const t0 = performance.now();
    await fillForBench(s);
    // A rare word in one conversation in 2,000.
    await s.deps.sql`
      INSERT INTO messages (workspace_id, conversation_id, role, content, created_at)
      SELECT workspace_id, id, 'visitor', 'My parcel went to Zanzibar instead', last_message_at
        FROM conversations WHERE id % 2000 = 0`;
    await s.deps.sql`VACUUM ANALYZE`;
    const fill = (performance.now() - t0) / 1000;

    const auth = { authorization: `Bearer ${D.acme.owner}`, accept: "application/json" };
    const get = (path: string) => () => fetch(`${s.url}${path}`, { headers: auth });
    const pages: [string, string][] = [
      ["first page, no filter", "/api/dashboard/conversations"],
      ["status=closed", "/api/dashboard/conversations?status=closed"],
      ["tag + rating=unrated", "/api/dashboard/conversations?tag=1&rating=unrated"],
      ["q=zanzibar (50 matches: sparse plan)", "/api/dashboard/conversations?q=zanzibar"],
      ["q=order (100,000 matches: dense plan)", "/api/dashboard/conversations?q=order"],
      ["q=nothingatall (no match)", "/api/dashboard/conversations?q=nothingatall"],
    ];
    const pageRows: string[] = [];
    for (const [name, path] of pages) {
      const times = await timeRequests(get(path), { samples: SAMPLES, warmUp: 3 });
      pageRows.push(
        `| ${name} | ${percentile(times, 0.5).toFixed(1)} | ${
          percentile(times, 0.95).toFixed(1)
        } |`,
      );
    }

    const small = await measureExport(s, `from=${day(-6)}`, false);
    const full = await measureExport(s, "", false);
    const again = await measureExport(s, "", false);
    const sampled = await measureExport(s, "", true);
    // Other requests while an export runs: the connection is free between batches.
    const during = measureExport(s, "", false);
    await new Promise((r) => setTimeout(r, 500));
    const whileExporting = await timeRequests(get("/api/dashboard/conversations"), {
      samples: 20,
      warmUp: 0,
    });
    const concurrent = await during;
    const whole = await measureWhole(s);
    const exportRow = (name: string, r: ExportRun) =>
      `| ${name} | ${r.rows.toLocaleString("en")} | ${(r.bytes / MiB).toFixed(1)} | ${
        r.seconds.toFixed(2)
      } | ${Math.round(r.rows / r.seconds).toLocaleString("en")} | ${r.before.toFixed(0)} | ${
        r.peak.toFixed(0)
      } | **${(r.peak - r.before).toFixed(0)}** | ${
        r.livePeak === r.liveBefore ? "—" : `**${(r.livePeak - r.liveBefore).toFixed(1)}**`
      } |`;
    return [
      `### ${label}`,
      "",
      `Fill (100,000 conversations, 300,050 messages, VACUUM ANALYZE): ${fill.toFixed(0)} s.`,
      "",
      "| Export | rows | MiB | seconds | rows/s | RSS before (MiB) | RSS peak (MiB) | RSS growth (MiB) | live heap growth (MiB) |",
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
      exportRow("streamed, `from` 6 days ago", small),
      exportRow("streamed, everything", full),
      exportRow("streamed, everything, again", again),
      exportRow("streamed, everything, live heap sampled (GC every 10 chunks)", sampled),
      exportRow("streamed, everything, while 20 list pages are served", concurrent),
      exportRow("not streamed: one query, one string (5 columns)", whole),
      "",
      `| List page (25 rows) | p50 ms | p95 ms |`,
      "| --- | ---: | ---: |",
      ...pageRows,
      `| first page, no filter, during an export | ${
        percentile(whileExporting, 0.5).toFixed(1)
      } | ${percentile(whileExporting, 0.95).toFixed(1)} |`,
    ].join("\n");
  } finally {
    await s.stop();
  }
}

export async function run(): Promise<string> {
  const out = ["## Conversation history and CSV export (issue 23)", ""];
  out.push(await withDatabase(null, () => measure("Embedded (PGlite)")));
  const pg = await realPostgresUrl();
  if (pg) out.push("", await withDatabase(pg, () => measure("PostgreSQL")));
  return out.join("\n");
}

if (import.meta.main) console.log(await run());
