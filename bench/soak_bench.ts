/**
 * Soak: mixed load through nginx on three instances (cli/cluster), on
 * PostgreSQL and Redis, for SOAK_MINUTES (default 30), reported per
 * SOAK_WINDOW_MINUTES (default 5): errors, p50/p99 from an agent reply to its
 * `message.created` on a socket, p50/p99 of the widget's first delta, and
 * each instance's resident memory. Beside the reply → event time, the reply's
 * own HTTP answer (the server's part of the path), and the database's state
 * per window: dead rows, the most rows changed in one table since its last
 * ANALYZE, and how long ago `conversations` was last analyzed (issue 44: plans
 * kept for tables as they were at start made every reply slower with uptime);
 * and this process's own memory, since every figure is taken here; each
 * instance's event-loop stalls (parley_event_loop_delay_seconds from /metrics). Where the
 * server preloads pg_stat_statements, each window's costliest and longest
 * statements and the longest VACUUM and ANALYZE runs follow the table (statement_stats.ts).
 * The load: widget streams, agent replies,
 * widget heartbeats, SOAK_SOCKETS idle sockets (default 2,000) answering the
 * server's pings, and at the start of each window a crawl of a local site as a
 * new source, the previous window's source deleted (one site's knowledge all run long).
 *
 *   SOAK_MINUTES=30 deno task bench soak
 */
import postgres from "postgres";
import { percentile, realPostgresUrl, withDatabase } from "./support.ts";
import { startStatementStats } from "./statement_stats.ts";
import { parseExposition } from "../tests/observability/prometheus.ts";
import { readStream, startTestCluster } from "../tests/cluster/cluster_helpers.ts";
import { T } from "../tests/helpers/fixtures.ts";
import { page, startLocalSite } from "../tests/helpers/local_site.ts";
import { connected, pusherClient, subscribe } from "../tests/realtime/pusher_helpers.ts";
import { freshIp } from "../tests/widget/widget_client.ts";

const METRICS_TOKEN = "soak-metrics-token-0123456789";
const num = (name: string, fallback: number) => Number(Deno.env.get(name) ?? fallback);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Window {
  errors: string[];
  replyToEvent: number[];
  /** The reply's own HTTP answer, as the bench reads it. */
  replyHttp: number[];
  /** The same, for replies to a conversation started this window (a few messages long). */
  freshReplyToEvent: number[];
  firstDelta: number[];
  /** The machine's 1-minute load average, sampled every 10 s. */
  load: number[];
  streams: number;
  replies: number;
  heartbeats: number;
}

const newWindow = (): Window => ({
  errors: [],
  replyToEvent: [],
  replyHttp: [],
  freshReplyToEvent: [],
  firstDelta: [],
  load: [],
  streams: 0,
  replies: 0,
  heartbeats: 0,
});

async function rssMiB(pid: number): Promise<number> {
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
  } catch {
    return NaN;
  }
}

/** An idle Pusher-protocol socket: connects, then answers the server's pings. */
function idleSocket(port: number): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/app/parley?protocol=7`);
    ws.onmessage = (e) => {
      const frame = JSON.parse(e.data);
      if (frame.event === "pusher:connection_established") resolve(ws);
      if (frame.event === "pusher:ping") {
        ws.send(JSON.stringify({ event: "pusher:pong", data: {} }));
      }
    };
    ws.onerror = () => reject(new Error("socket refused"));
  });
}

export async function run(): Promise<string> {
  const pg = await realPostgresUrl();
  if (!pg) return "## Soak\n\nSkipped: no PostgreSQL.";
  Deno.env.set("REDIS_URL", Deno.env.get("REDIS_URL") ?? "redis://127.0.0.1:6379");
  const minutes = num("SOAK_MINUTES", 30);
  const windowMinutes = num("SOAK_WINDOW_MINUTES", 5);
  const socketCount = num("SOAK_SOCKETS", 2000);
  // Every socket comes from this one address: lift the per-address cap (100) for the run.
  const { cluster, ai, close, databaseUrl } = await withDatabase(
    pg,
    // Thousands of messages: past the test plan's monthly quota, so the quota is lifted too.
    () =>
      startTestCluster({
        env: { REALTIME_MAX_PER_IP: String(socketCount + 100), METRICS_TOKEN },
        monthlyLimit: 100_000_000,
      }),
  );
  const lb = cluster.url;
  /** Per instance: event-loop samples so far, and those later than 50 and 100 ms. */
  const loopDelay = async (url: string) => {
    const res = await fetch(`${url}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    const samples = parseExposition(await res.text())
      .filter((x) => x.name === "parley_event_loop_delay_seconds_bucket");
    const upTo = (le: string) => samples.find((x) => x.labels.le === le)?.value ?? 0;
    const all = upTo("+Inf");
    return { all, over50: all - upTo("0.05"), over100: all - upTo("0.1") };
  };
  let loopBefore = await Promise.all(cluster.instances.map((x) => loopDelay(x.url)));
  /** Each instance's event-loop samples later than 50 / 100 ms this window (per 1,000 taken). */
  const loopStalls = async () => {
    const now = await Promise.all(cluster.instances.map((x) => loopDelay(x.url)));
    const text = now.map((n, i) => {
      const b = loopBefore[i]!;
      const per1000 = (k: "over50" | "over100") =>
        ((n[k] - b[k]) / Math.max(1, n.all - b.all) * 1000).toFixed(1);
      return `${per1000("over50")}/${per1000("over100")}`;
    }).join(" · ");
    loopBefore = now;
    return text;
  };
  const stats = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  // The statements the soak's growth was read from (docs/BENCHMARKS.md, issue 44).
  const statements = await startStatementStats(stats, [
    { name: "widget first turn", pattern: /^\s*WITH\s+known AS/ },
    { name: "message write", pattern: /^\s*WITH mid AS/ },
    { name: "broadcast inbox row", pattern: /^\s*WITH page AS[\s\S]*public_id =/ },
    // pg_stat_statements shows constants as parameters ('closed' is $4).
    { name: "heartbeat lookup", pattern: /visitor_id = \$\d+ AND status <> \$\d+\s+ORDER BY/ },
  ]);
  const statementLines: string[] = [];
  /** Dead rows, most rows changed since an ANALYZE, and minutes since conversations' last one. */
  const databaseState = async () => {
    const [row] = await stats<{ dead: number; changed: number; analyzed: number | null }[]>`
      SELECT sum(n_dead_tup)::float8 AS dead, max(n_mod_since_analyze)::float8 AS changed,
             (SELECT extract(epoch FROM now() - greatest(last_analyze, last_autoanalyze)) / 60
                FROM pg_stat_user_tables WHERE relname = 'conversations')::float8 AS analyzed
        FROM pg_stat_user_tables`;
    return `${row!.dead} / ${row!.changed} / ${
      row!.analyzed === null ? "never" : `${row!.analyzed.toFixed(1)} min`
    }`;
  };
  const site = startLocalSite(() => {
    const routes: Record<string, ReturnType<typeof page>> = {};
    const links = Array.from({ length: 20 }, (_, i) => `/p${i}`);
    routes["/"] = page("Home", ["The soak test's help centre."], links);
    for (const l of links) routes[l] = page(l, [`Page ${l} explains topic ${l} at length.`]);
    return routes;
  });
  const idle: WebSocket[] = [];
  for (let i = 0; i < socketCount; i += 100) {
    idle.push(
      ...await Promise.all(Array.from(
        { length: Math.min(100, socketCount - i) },
        () => idleSocket(cluster.port),
      )),
    );
  }
  const me = await (await fetch(`${lb}/api/agent/me`, {
    headers: { authorization: `Bearer ${T.acme.agent.agent}` },
  })).json();
  const watcher = pusherClient({ url: lb, realtimePort: cluster.port }, {
    token: T.acme.agent.agent,
  });
  await connected(watcher);
  const sub = await subscribe(watcher, `private-workspace.${me.company.id}`);
  if (!sub.ok) throw new Error("watcher subscription refused");
  const sentAt = new Map<string, number>();
  let current = newWindow();
  sub.channel.bind("message.created", (d: { message: { content: string } }) => {
    const t0 = sentAt.get(d.message.content);
    if (t0 !== undefined) {
      const ms = performance.now() - t0;
      if (d.message.content.startsWith("soak fresh")) current.freshReplyToEvent.push(ms);
      else current.replyToEvent.push(ms);
      sentAt.delete(d.message.content);
    }
  });
  const start = await readStream(lb, "acme-helper", { visitor_id: "v_soak", message: "Hello" });
  const conversation = start.events[0]!.data.conversation_id as string;

  let running = true;
  let n = 0;
  const streamLoop = async () => {
    while (running) {
      const w = current;
      try {
        const r = await readStream(lb, "acme-helper", {
          visitor_id: `v_soak_${++n % 500}`,
          message: `Soak question ${n}`,
        });
        const delta = r.events.find((e) => e.event === "delta");
        if (r.status !== 200 || r.events.at(-1)?.event !== "done" || r.error) {
          w.errors.push(`stream ${r.status} ${r.error ?? r.events.at(-1)?.event}`);
        } else if (delta) w.firstDelta.push(delta.atMs);
        w.streams++;
      } catch (err) {
        w.errors.push(`stream ${err}`);
      }
      await sleep(200);
    }
  };
  // Every other reply goes to a conversation started in the current window: beside the one
  // conversation that grows all run long, it tells growth from the state of the machine.
  let fresh = { window: null as Window | null, conversation: "" };
  const replyTarget = async (w: Window, i: number) => {
    if (i % 2 === 0) return { conversation, marker: `soak reply ${i}` };
    if (fresh.window !== w) {
      const r = await readStream(lb, "acme-helper", { visitor_id: `v_fresh_${i}`, message: "Hi" });
      fresh = { window: w, conversation: r.events[0]!.data.conversation_id as string };
    }
    return { conversation: fresh.conversation, marker: `soak fresh ${i}` };
  };
  const replyLoop = async () => {
    while (running) {
      const w = current;
      const { conversation, marker } = await replyTarget(w, ++n);
      const sent = performance.now();
      sentAt.set(marker, sent);
      const res = await fetch(`${lb}/api/agent/conversations/${conversation}/reply`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${T.acme.agent.agent}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ body: marker, client_id: marker }),
      }).catch((err) => err as Error);
      if (res instanceof Error) w.errors.push(`reply ${res.message}`);
      else {
        w.replyHttp.push(performance.now() - sent);
        await res.body?.cancel();
        if (res.status !== 200) w.errors.push(`reply ${res.status}`);
      }
      w.replies++;
      await sleep(250);
    }
  };
  const heartbeatLoop = async () => {
    while (running) {
      const w = current;
      const beats = Array.from({ length: 20 }, async (_, i) => {
        const res = await fetch(`${lb}/widget/acme-helper/heartbeat`, {
          method: "POST",
          headers: { "content-type": "application/json", ...freshIp() },
          body: JSON.stringify({
            visitor_id: `v_beat_${i}`,
            page_url: `https://shop.example/p${i}`,
            chat_open: false,
          }),
        }).catch((err) => err as Error);
        if (res instanceof Error) w.errors.push(`heartbeat ${res.message}`);
        else {
          await res.body?.cancel();
          if (res.status !== 200) w.errors.push(`heartbeat ${res.status}`);
        }
        w.heartbeats++;
      });
      await Promise.all(beats);
      await sleep(5000);
    }
  };
  // Each window crawls the site again as a new source and then deletes the previous window's
  // source, the way an owner re-syncs a site: the crawl's writes and deletions go on all run
  // long while the knowledge every widget turn searches stays one site large. (Until issue 44's
  // second run every window added a source and none left: 113 copies of the site at 50 minutes,
  // so each turn searched more with uptime, and the soak measured its own growth.)
  const knowledgeUrl = `${lb}/api/portal/chatbots/acme-helper/knowledge`;
  const portalAuth = { authorization: `Bearer ${T.acme.owner.portal}` };
  let previousSource: number | null = null;
  const crawl = async (w: Window) => {
    const res = await fetch(knowledgeUrl, {
      method: "POST",
      headers: { ...portalAuth, "content-type": "application/json" },
      body: JSON.stringify({ type: "url", source_url: `${site.url}/` }),
    });
    if (res.status !== 201) {
      await res.body?.cancel();
      w.errors.push(`crawl ${res.status}`);
      return;
    }
    const { data } = await res.json() as { data: { id: number } };
    if (previousSource !== null) {
      const gone = await fetch(`${knowledgeUrl}/${previousSource}`, {
        method: "DELETE",
        headers: portalAuth,
      });
      await gone.body?.cancel();
      if (gone.status !== 200) w.errors.push(`delete source ${gone.status}`);
    }
    previousSource = data.id;
  };

  const loadLoop = async () => {
    while (running) {
      const [one] = (await Deno.readTextFile("/proc/loadavg")).split(" ");
      current.load.push(Number(one));
      // The fake provider keeps every request it served, prompts and all, for tests to read; a
      // soak reads none, and a record kept for an hour grows this process's heap (and its
      // collections, which every figure measured here waits behind) by some 17 MB a minute.
      ai.requests.length = 0;
      await sleep(10_000);
    }
  };
  const loops = [streamLoop(), streamLoop(), replyLoop(), heartbeatLoop(), loadLoop()];
  const rows: string[] = [];
  const windows = Math.max(1, Math.round(minutes / windowMinutes));
  for (let i = 0; i < windows; i++) {
    current = newWindow();
    await crawl(current);
    await sleep(windowMinutes * 60_000);
    const w = current;
    const rss = await Promise.all(cluster.instances.map((x) => rssMiB(x.pid)));
    const f = (v: number[], p: number) => v.length ? percentile(v, p).toFixed(1) : "–";
    rows.push(
      `| ${i * windowMinutes}–${
        (i + 1) * windowMinutes
      } min | ${w.streams} / ${w.replies} / ${w.heartbeats} | ${w.errors.length}${
        w.errors.length ? ` (${[...new Set(w.errors)].slice(0, 3).join("; ")})` : ""
      } | ${f(w.replyToEvent, 0.5)} / ${f(w.replyToEvent, 0.99)} | ${
        f(w.freshReplyToEvent, 0.5)
      } / ${f(w.freshReplyToEvent, 0.99)} | ${f(w.replyHttp, 0.5)} | ${f(w.firstDelta, 0.5)} / ${
        f(w.firstDelta, 0.99)
      } | ${rss.map((r) => r.toFixed(0)).join(" / ")} | ${
        (await rssMiB(Deno.pid)).toFixed(0)
      } | ${await loopStalls()} | ${await databaseState()} | ${
        w.load.length ? (w.load.reduce((a, b) => a + b, 0) / w.load.length).toFixed(1) : "–"
      } |`,
    );
    console.error(rows.at(-1));
    if (statements) {
      const lines = await statements.window();
      statementLines.push(`- ${i * windowMinutes}–${(i + 1) * windowMinutes} min`, ...lines);
      console.error(lines.join("\n"));
    }
  }
  running = false;
  await Promise.all(loops);
  watcher.disconnect();
  for (const ws of idle) ws.close();
  await site.close();
  await stats.end();
  await close();
  return [
    `## Soak: ${minutes} minutes through nginx, three instances, PostgreSQL + Redis`,
    "",
    `${socketCount} idle sockets answering pings, two widget stream loops, one agent reply loop ` +
    "(4 per second), 20 widget heartbeats every 5 s, a crawl of a 21-page local site per window " +
    "as a new source, the previous window's source deleted.",
    "",
    "Replies alternate between the conversation that grows all run long and one started in the " +
    "window (the baseline beside it); load is the machine's mean 1-minute load average.",
    "",
    "| Window | streams / replies / heartbeats | errors | reply → event p50 / p99, growing conversation (ms) | same, fresh conversation (ms) | reply HTTP p50 (ms) | first delta p50 / p99 (ms) | RSS per instance (MiB) | bench process RSS (MiB) | event-loop samples late > 50 / > 100 ms per 1,000, per instance | dead rows / most changed since ANALYZE / conversations analyzed | load |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
    statements
      ? "Statements per window (pg_stat_statements: the most time in all, the longest once, " +
        "the four longest VACUUM and ANALYZE):"
      : "Statements per window: not shown (the server does not preload pg_stat_statements).",
    "",
    ...statementLines,
  ].join("\n");
}
