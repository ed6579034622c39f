/**
 * Requests while CSV exports stream (issue 36): `/api/status` (no database),
 * the dashboard's tag list (a token check and one query) and a visitor's
 * first delta through the widget stream, each p50/p99/max, with 0, 1 and 8
 * exports of the whole history started at once, on the base commit and this
 * tree in the same run, embedded and on PostgreSQL.
 *
 * The history (BENCH_CONVERSATIONS, default 20,000 conversations of three
 * messages, tags on a fifth) is written once with SQL through an in-process
 * server, then each side runs as shipped in a process of its own on that
 * data (`main.ts`, the base's from `git archive` into data/ab-base/), so the
 * load generator here does not share its thread. Requests are started on a
 * fixed schedule whether the last one answered or not (status and tag list
 * every 50 ms, a first delta every 500 ms), so a stall is counted by every
 * request it holds up: a loop that waits for each answer would send few
 * requests during a stall and report it once. Measuring runs from the exports'
 * start until the last accepted one is read to its end (5 s with none).
 * BENCH_BASE names the base (default 288bf3e, the commit before the change).
 */
import { startFakeAi } from "../tests/helpers/fake_ai.ts";
import { createTestDatabase, startTestServer } from "../tests/helpers/test_server.ts";
import { D, dashboardSeed } from "../tests/dashboard/dashboard_seed.ts";
import { baseTree, SERVER_SOURCES, shortCommit } from "./base_tree.ts";
import { freePort, percentile, realPostgresUrl, waitFor, withDatabase } from "./support.ts";

const BASE = Deno.env.get("BENCH_BASE") || "288bf3e";
const CONVERSATIONS = Number(Deno.env.get("BENCH_CONVERSATIONS") ?? "20000");
const EXPORT_COUNTS = [0, 1, 8];
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? "1");
const PROBE_EVERY_MS = 50;
const DELTA_EVERY_MS = 500;
const IDLE_WINDOW_MS = 5000;
const CONFIG = new URL("../deno.json", import.meta.url).pathname;
const APP_KEY = "base64:" + btoa(String.fromCharCode(...new Uint8Array(32).fill(7)));
const REPLY = "Our support desk is open Monday to Friday, from nine to five.";

/** The history, written once: `dataDir` (embedded) or `databaseUrl` holds it. */
async function prepare(target: { dataDir: string; databaseUrl?: string }): Promise<number> {
  const seed = dashboardSeed();
  seed.workspaces[0]!.plan = "unlimited";
  const s = await startTestServer({
    seed,
    dataDir: target.dataDir,
    databaseUrl: target.databaseUrl,
    env: { SLA_CHECK_SECONDS: "3600" },
  });
  try {
    const sql = s.deps.sql;
    const [ids] = await sql<{ ws: number; bot: number }[]>`
      SELECT w.id AS ws, b.id AS bot FROM workspaces w JOIN chatbots b ON b.workspace_id = w.id
       WHERE w.slug = 'acme' AND b.public_key = 'acme-helper'`;
    const { ws, bot } = ids!;
    await sql`
      INSERT INTO conversations (workspace_id, chatbot_id, visitor_id, channel, status,
        handoff_state, resolution, resolved_at, visitor_name, last_message_at, created_at)
      SELECT ${ws}, ${bot}, 'bench-' || i, 'widget', 'closed', 'bot_active', 'resolved',
        now() - i * interval '1 minute', CASE WHEN i % 3 = 0 THEN 'Visitor ' || i END,
        now() - i * interval '1 minute', now() - i * interval '1 minute' - interval '5 minutes'
        FROM generate_series(1, ${CONVERSATIONS}) AS i`;
    await sql`
      INSERT INTO messages (workspace_id, conversation_id, role, content, created_at)
      SELECT ${ws}, c.id, r.role, r.content || ' (' || c.id || ')',
        c.last_message_at - (3 - r.n) * interval '20 seconds'
        FROM conversations c
        CROSS JOIN (VALUES (1, 'visitor', 'Hello, where is my order? It was due yesterday.'),
                           (2, 'assistant', 'Let me check that for you.'),
                           (3, 'visitor', 'Thanks, the number is 1234.')) AS r(n, role, content)
       WHERE c.workspace_id = ${ws} AND c.visitor_id LIKE 'bench-%'`;
    await sql`
      INSERT INTO conversation_tags (conversation_id, tag_id, source)
      SELECT c.id, t.id, 'manual' FROM conversations c JOIN tags t ON t.workspace_id = ${ws}
       WHERE c.workspace_id = ${ws} AND c.id % 5 = 0 AND t.name = 'billing'`;
    await sql`VACUUM ANALYZE`;
    const [n] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM conversations WHERE workspace_id = ${ws}`;
    return n!.n;
  } finally {
    await s.stop();
  }
}

interface Side {
  label: string;
  main: string;
  config: string[];
}

interface Stats {
  p50: number;
  p99: number;
  max: number;
  n: number;
}

interface Round {
  exports: number;
  accepted: number;
  refused: number;
  seconds: number;
  status: Stats;
  tags: Stats;
  delta: Stats;
}

const stats = (v: number[]): Stats => ({
  p50: percentile(v, 0.5),
  p99: percentile(v, 0.99),
  max: Math.max(...v),
  n: v.length,
});

let ipSeq = 0;
const nextIp = () => {
  const n = ++ipSeq;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};

async function timed(call: () => Promise<Response>): Promise<number> {
  const t0 = performance.now();
  const res = await call();
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return performance.now() - t0;
}

/** A new visitor's first message through the widget stream: ms to the first `delta`. */
async function firstDelta(base: string, visitor: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${base}/widget/acme-helper/stream`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": nextIp() },
    body: JSON.stringify({
      visitor_id: visitor,
      message: "When are you open?",
      client_id: crypto.randomUUID(),
    }),
  });
  if (res.status !== 200) throw new Error(`stream: HTTP ${res.status} ${await res.text()}`);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let at: number | null = null;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
    if (at === null && text.includes("event: delta")) at = performance.now() - t0;
  }
  if (at === null) throw new Error(`stream without a delta: ${text.slice(0, 200)}`);
  return at;
}

/** Probes on a fixed schedule until `until()`; their times. */
async function probe(
  every: number,
  call: (i: number) => Promise<number>,
  until: () => boolean,
): Promise<number[]> {
  const started: Promise<number>[] = [];
  while (!until()) {
    started.push(call(started.length));
    await new Promise((r) => setTimeout(r, every));
  }
  return await Promise.all(started);
}

/** One export read to its end: its status and line count (header included). */
async function readExport(base: string, token: string): Promise<[number, number]> {
  const res = await fetch(`${base}/api/dashboard/conversations/export`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (res.status !== 200) {
    await res.arrayBuffer();
    return [res.status, 0];
  }
  let lines = 0;
  for await (const chunk of res.body!) for (const b of chunk) if (b === 10) lines++;
  return [200, lines];
}

async function measureSide(
  side: Side,
  target: { dataDir: string; databaseUrl?: string },
  aiBaseUrl: string,
  rows: number,
): Promise<{ rounds: Round[]; alone: [number, number] }> {
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...side.config, side.main],
    env: {
      PORT: String(port),
      REALTIME_PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: target.dataDir,
      DATABASE_URL: target.databaseUrl ?? "",
      REDIS_URL: "",
      DEMO: "0",
      LOG_LEVEL: "error",
      APP_KEY,
      AI_BASE_URL: aiBaseUrl,
      TRUSTED_PROXIES: "127.0.0.1",
      SLA_CHECK_SECONDS: "3600",
    },
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  try {
    await waitFor(`${base}/readyz`);
    const status = () => timed(() => fetch(`${base}/api/status`));
    const tags = () =>
      timed(() =>
        fetch(`${base}/api/dashboard/tags`, {
          headers: { authorization: `Bearer ${D.acme.owner}`, accept: "application/json" },
        })
      );
    for (let i = 0; i < 30; i++) await Promise.all([status(), tags()]);
    for (let i = 0; i < 5; i++) await firstDelta(base, `warm-${side.label}-${i}`);
    // One export with no other request: what giving way costs an export on an idle server.
    const a0 = performance.now();
    const [aloneCode, aloneLines] = await readExport(base, D.acme.owner);
    if (aloneCode !== 200) throw new Error(`${side.label}: a lone export answered ${aloneCode}`);
    const alone: [number, number] = [(performance.now() - a0) / 1000, aloneLines - 1];
    await new Promise((r) => setTimeout(r, 1000));
    const rounds: Round[] = [];
    for (const count of EXPORT_COUNTS) {
      const t0 = performance.now();
      // Two users, each within the limit of ten exports a minute.
      const tokens = Array.from(
        { length: count },
        (_, i) => i % 2 ? D.acme.administrator : D.acme.owner,
      );
      let left = count;
      const exports = Promise.all(tokens.map((tok) => readExport(base, tok).finally(() => left--)));
      const until = count === 0 ? () => performance.now() - t0 >= IDLE_WINDOW_MS : () => left === 0;
      const [s, t, d] = await Promise.all([
        probe(PROBE_EVERY_MS, status, until),
        probe(PROBE_EVERY_MS, tags, until),
        probe(
          DELTA_EVERY_MS,
          (i) => firstDelta(base, `v-${side.label}-${count}-${i}`),
          until,
        ),
      ]);
      const done = await exports;
      const seconds = (performance.now() - t0) / 1000;
      // The probes' visitors add conversations, so a file may hold a few more.
      for (const [code, lines] of done) {
        if (code === 200 && lines - 1 < rows) {
          throw new Error(`${side.label}: an export had ${lines - 1} rows, not ${rows}`);
        }
      }
      rounds.push({
        exports: count,
        accepted: done.filter(([code]) => code === 200).length,
        refused: done.filter(([code]) => code !== 200).length,
        seconds,
        status: stats(s),
        tags: stats(t),
        delta: stats(d),
      });
      // The next round starts on a quiet server.
      await new Promise((r) => setTimeout(r, 1000));
    }
    return { rounds, alone };
  } finally {
    try {
      proc.kill("SIGTERM");
    } catch { /* already gone */ }
    await proc.status;
  }
}

const f = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const cell = (s: Stats) => `${f(s.p50)} / ${f(s.p99)} / ${f(s.max)}`;

async function measureBackend(label: string, databaseUrl: string | null): Promise<string> {
  const dataDir = await Deno.makeTempDir({ prefix: "parley-bench-export-" });
  const db = databaseUrl ? await withDatabase(databaseUrl, createTestDatabase) : null;
  const target = { dataDir, databaseUrl: db?.url };
  const stub = startFakeAi({ reply: REPLY });
  try {
    const t0 = performance.now();
    const rows = await prepare(target);
    const fill = (performance.now() - t0) / 1000;
    const baseRoot = await baseTree(BASE, SERVER_SOURCES);
    const sides: Side[] = [
      {
        label: `base ${await shortCommit(BASE)}`,
        main: new URL("main.ts", baseRoot).pathname,
        config: ["--config", CONFIG],
      },
      {
        label: `this tree (${await shortCommit("HEAD")}+)`,
        main: new URL("../main.ts", import.meta.url).pathname,
        config: [],
      },
    ];
    const lines = [
      `### ${label}`,
      "",
      `${rows.toLocaleString("en")} conversations (fill ${fill.toFixed(0)} s). Each cell: ` +
      "p50 / p99 / max in ms.",
      "",
      "| Side | exports started | streamed / refused | seconds | `/api/status` | tag list | first delta | samples (status, tags, delta) |",
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ];
    // Sides alternate, round after round (BENCH_ROUNDS), on the same data.
    const order = Array.from({ length: ROUNDS }, () => sides).flat();
    const alone: string[] = [];
    for (const side of order) {
      const measured = await measureSide(side, target, stub.baseUrl, rows);
      const [seconds, exported] = measured.alone;
      alone.push(
        `| ${side.label} | ${seconds.toFixed(1)} | ${
          Math.round(exported / seconds).toLocaleString("en")
        } |`,
      );
      for (const r of measured.rounds) {
        lines.push(
          `| ${side.label} | ${r.exports} | ${r.accepted} / ${r.refused} | ${
            r.seconds.toFixed(1)
          } | ${cell(r.status)} | ${cell(r.tags)} | ${
            cell(r.delta)
          } | ${r.status.n}, ${r.tags.n}, ${r.delta.n} |`,
        );
      }
    }
    lines.push(
      "",
      "| Side | one export, no other request: seconds | rows/s |",
      "| --- | ---: | ---: |",
      ...alone,
    );
    return lines.join("\n");
  } finally {
    await stub.close();
    await db?.drop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

export async function run(): Promise<string> {
  const cpu = (await Deno.readTextFile("/proc/cpuinfo")).match(/model name\s*:\s*(.+)/)?.[1];
  const out = [
    "## Requests while CSV exports stream (issue 36)",
    "",
    `Machine: ${navigator.hardwareConcurrency} cores (${
      cpu ?? "unknown CPU"
    }), Deno ${Deno.version.deno}; load average at the start: ${
      Deno.loadavg().map((x) => x.toFixed(1)).join(", ")
    }.`,
    "",
  ];
  out.push(await withDatabase(null, () => measureBackend("Embedded (PGlite)", null)));
  const pg = await realPostgresUrl();
  if (pg) out.push("", await measureBackend("PostgreSQL", pg));
  out.push("", `Load average at the end: ${Deno.loadavg().map((x) => x.toFixed(1)).join(", ")}.`);
  return out.join("\n");
}

if (import.meta.main) console.log(await run());
