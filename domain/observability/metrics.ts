/**
 * Prometheus metrics (docs/operations.md), kept with prom-client: the
 * maintained client every Prometheus user knows, with the text format,
 * histograms and scrape-time collectors done right, and no native code.
 *
 * One registry per process, like the instance Prometheus scrapes. It exists
 * only while a server started with METRICS_TOKEN runs: until then every
 * `record…` call returns at its first line, so a server without metrics pays
 * one boolean test per event (bench/metrics_bench.ts). Labels are bounded by
 * construction: route templates, never paths; kinds and outcomes from fixed
 * sets; models capped (`boundedModel`). No ids of any kind.
 */
import client from "prom-client";
import { watchEventLoopDelay } from "./event_loop_delay.ts";

/** Scrape-time readings of one running server (sockets, queue, pool). */
export interface MetricsSource {
  sockets(): { open: number; subscriptions: Record<string, number> };
  jobs(): Promise<{ kind: string; status: string; count: number; oldestSeconds: number }[]>;
  pool(): Promise<{ size: number; inUse: number; idle: number }>;
  /** Visitor turns being stored now (domain/conversations/turns_in_flight.ts). */
  turnsStoring(): number;
}

const SECONDS_HTTP = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const SECONDS_FIRST_DELTA = [0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10];
const SECONDS_REPLY = [0.25, 0.5, 1, 2, 3, 5, 8, 13, 20, 30, 60];
const SECONDS_RETRIEVAL = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const TOKENS = [16, 64, 256, 1024, 4096, 16384, 65536];

function build(registry: client.Registry) {
  const registers = [registry];
  const counter = (name: string, help: string, labelNames: string[] = []) =>
    new client.Counter({ name, help, labelNames, registers });
  const histogram = (name: string, help: string, labelNames: string[], buckets: number[]) =>
    new client.Histogram({ name, help, labelNames, buckets, registers });
  const gauge = (name: string, help: string, labelNames: string[] = []) =>
    new client.Gauge({ name, help, labelNames, registers });
  return {
    http: new HttpMetrics(registry),
    streamsInFlight: gauge("parley_widget_streams_in_flight", "Widget reply streams open now."),
    streamFirstDelta: histogram(
      "parley_widget_stream_first_delta_seconds",
      "From the stream request's arrival to the reply's first delta sent.",
      [],
      SECONDS_FIRST_DELTA,
    ),
    streamReply: histogram(
      "parley_widget_stream_reply_seconds",
      "From the stream request's arrival to its end, by outcome.",
      ["outcome"],
      SECONDS_REPLY,
    ),
    streamsEnded: counter(
      "parley_widget_streams_total",
      "Widget reply streams ended, by outcome (ai, human, left, or the error event's code).",
      ["outcome"],
    ),
    providerCalls: counter(
      "parley_ai_provider_calls_total",
      "AI provider calls (retries included in one call), by provider, model, operation, outcome.",
      ["provider", "model", "operation", "outcome"],
    ),
    providerSeconds: histogram(
      "parley_ai_provider_call_duration_seconds",
      "AI provider call time, to the last token of a streamed reply.",
      ["provider", "model", "operation", "outcome"],
      SECONDS_REPLY,
    ),
    providerTokens: counter(
      "parley_ai_provider_tokens_total",
      "Tokens of successful AI provider calls, by direction (in: prompt, out: completion).",
      ["provider", "model", "direction"],
    ),
    providerCallTokens: histogram(
      "parley_ai_provider_call_tokens",
      "Tokens per successful AI provider call, by direction.",
      ["provider", "direction"],
      TOKENS,
    ),
    retrievalSeconds: histogram(
      "parley_retrieval_duration_seconds",
      "Knowledge retrieval for one question (full text, vectors and fusion).",
      [],
      SECONDS_RETRIEVAL,
    ),
    eventsPublished: counter(
      "parley_events_published_total",
      "Domain events published on this instance, by type.",
      ["type"],
    ),
    eventsDelivered: counter(
      "parley_realtime_events_delivered_total",
      "Realtime frames sent to this instance's sockets (one per socket), by channel kind.",
      ["channel"],
    ),
    jobsFinished: counter(
      "parley_jobs_finished_total",
      "Background job attempts ended on this instance, by kind and outcome (done, retry, failed).",
      ["kind", "outcome"],
    ),
    jobSeconds: histogram(
      "parley_job_duration_seconds",
      "Background job attempt time, by kind.",
      ["kind"],
      [0.01, 0.05, 0.25, 1, 5, 15, 60, 300],
    ),
    notifications: counter(
      "parley_notifications_sent_total",
      "Agent notifications, by channel (push, email) and outcome.",
      ["channel", "outcome"],
    ),
    webhooks: counter(
      "parley_webhook_deliveries_total",
      "Outbound webhook delivery attempts, by outcome.",
      ["outcome"],
    ),
    kvErrors: counter(
      "parley_kv_errors_total",
      "Kv (Redis) commands that failed or timed out, by command.",
      ["command"],
    ),
  };
}

type Metrics = ReturnType<typeof build>;

let registry: client.Registry | null = null;
let m: Metrics | null = null;
let stopLoopWatch: (() => void) | null = null;
const sources = new Set<MetricsSource>();

/**
 * Start keeping metrics for a server (its scrape-time readings come from
 * `source`); the returned function stops, and the last stop drops them all.
 */
export function enableMetrics(source: MetricsSource): () => void {
  if (!registry) {
    registry = new client.Registry();
    m = build(registry);
    addCollectors(registry);
    client.collectDefaultMetrics({ register: registry, prefix: "parley_" });
    stopLoopWatch = watchEventLoopDelay(registry);
  }
  sources.add(source);
  return () => {
    sources.delete(source);
    if (sources.size > 0 || !registry) return;
    stopLoopWatch?.();
    stopLoopWatch = null;
    registry.clear();
    registry = null;
    m = null;
    modelsSeen.clear();
  };
}

export function metricsEnabled(): boolean {
  return m !== null;
}

/** The exposition, in Prometheus's text format. */
export async function renderMetrics(): Promise<{ body: string; contentType: string }> {
  if (!registry) return { body: "", contentType: client.Registry.PROMETHEUS_CONTENT_TYPE };
  return { body: await registry.metrics(), contentType: registry.contentType };
}

/** Readings taken when Prometheus scrapes, summed over this process's servers. */
function addCollectors(registry: client.Registry): void {
  const registers = [registry];
  new client.Gauge({
    name: "parley_realtime_sockets_open",
    help: "Realtime sockets open on this instance.",
    registers,
    collect() {
      let open = 0;
      for (const s of sources) open += s.sockets().open;
      this.set(open);
    },
  });
  new client.Gauge({
    name: "parley_realtime_subscriptions",
    help: "Channel subscriptions held by this instance's sockets, by channel kind.",
    labelNames: ["channel"],
    registers,
    collect() {
      this.reset();
      for (const s of sources) {
        for (const [kind, n] of Object.entries(s.sockets().subscriptions)) {
          this.inc({ channel: kind }, n);
        }
      }
    },
  });
  new client.Gauge({
    name: "parley_visitor_turns_storing",
    help: "Visitor turns waiting for their commit now; past 64, a new one calls the provider " +
      "only once stored.",
    registers,
    collect() {
      let storing = 0;
      for (const s of sources) storing += s.turnsStoring();
      this.set(storing);
    },
  });
  // The queue is shared: every instance reports the same figures (use max() across them).
  const jobs = new client.Gauge({
    name: "parley_jobs",
    help: "Background jobs in the shared queue, by kind and status (queued, running, failed).",
    labelNames: ["kind", "status"],
    registers,
  });
  new client.Gauge({
    name: "parley_jobs_oldest_age_seconds",
    help: "How long the oldest due queued job has waited, by kind (0: none due yet).",
    labelNames: ["kind"],
    registers,
    async collect() {
      this.reset();
      jobs.reset();
      const first = sources.values().next().value;
      if (!first) return;
      for (const row of await first.jobs().catch(() => [])) {
        jobs.set({ kind: row.kind, status: row.status }, row.count);
        if (row.status === "queued") this.set({ kind: row.kind }, row.oldestSeconds);
      }
    },
  });
  type Pool = Awaited<ReturnType<MetricsSource["pool"]>>;
  const pool = (name: string, help: string, pick: (p: Pool) => number) =>
    new client.Gauge({
      name,
      help,
      registers,
      async collect() {
        let total = 0;
        for (const s of sources) total += pick(await s.pool().catch(() => NO_POOL));
        this.set(total);
      },
    });
  pool("parley_db_pool_size", "Database connections this instance may open.", (p) => p.size);
  pool("parley_db_pool_in_use", "Database connections running a query now.", (p) => p.inUse);
  pool("parley_db_pool_idle", "Database connections open and idle.", (p) => p.idle);
}

const NO_POOL = { size: 0, inUse: 0, idle: 0 };

// Recording. Each function is one test when metrics are off.

const SURFACES: [string, string][] = [
  ["/api/v1/", "v1"],
  ["/api/portal/", "portal"],
  ["/api/agent/", "agent"],
  ["/api/dashboard/", "dashboard"],
  ["/api/", "api"],
  ["/widget", "widget"],
  ["/trpc/", "trpc"],
  ["/app/", "realtime"],
  ["/inbox", "inbox"],
  ["/dashboard", "dashboard"],
  ["/healthz", "system"],
  ["/readyz", "system"],
  ["/metrics", "system"],
];
const surfaceOf = new Map<string, string>();

/** The surface a route template belongs to (the four APIs, the widget, …). */
export function surface(route: string): string {
  let s = surfaceOf.get(route);
  if (s === undefined) {
    s = SURFACES.find(([prefix]) => route.startsWith(prefix))?.[1] ?? "other";
    if (surfaceOf.size < 1000) surfaceOf.set(route, s);
  }
  return s;
}

export function recordHttpRequest(
  route: string,
  method: string,
  status: number,
  seconds: number,
): void {
  m?.http.record(route, method, status, seconds);
}

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
const METHOD_INDEX = new Map(METHODS.map((name, i) => [name, i]));

/** One route template's requests: counts by method and status, and its latency buckets. */
interface RouteCell {
  surface: string;
  /** Key: method index * 1000 + status. */
  counts: Map<number, number>;
  /** Observations per bucket (not cumulative), the last one past every bound. */
  buckets: Float64Array;
  sum: number;
  count: number;
}

/**
 * The two HTTP series, kept in plain cells and written out at scrape time.
 * They are updated on every request: prom-client's own counter and histogram
 * build a label key string per update (about 2 µs per request here, some 15%
 * of a trivial request's CPU; bench/metrics_bench.ts), and these a map lookup
 * and two number additions.
 */
class HttpMetrics {
  private readonly routes = new Map<string, RouteCell>();

  constructor(registry: client.Registry) {
    const requests = "parley_http_requests_total";
    const duration = "parley_http_request_duration_seconds";
    const requestsHelp = "HTTP requests answered, by surface, route template, method and status.";
    const durationHelp =
      "Time to the response's headers (a stream's body may go on), by surface and route template.";
    registry.registerMetric({
      name: requests,
      help: requestsHelp,
      type: "counter",
      get: () =>
        Promise.resolve({
          name: requests,
          help: requestsHelp,
          type: "counter",
          aggregator: "sum",
          values: this.requestValues(),
        }),
    } as unknown as client.Metric);
    registry.registerMetric({
      name: duration,
      help: durationHelp,
      type: "histogram",
      get: () =>
        Promise.resolve({
          name: duration,
          help: durationHelp,
          type: "histogram",
          aggregator: "sum",
          values: this.durationValues(duration),
        }),
    } as unknown as client.Metric);
  }

  record(route: string, method: string, status: number, seconds: number): void {
    let cell = this.routes.get(route);
    if (!cell) {
      cell = {
        surface: surface(route),
        counts: new Map(),
        buckets: new Float64Array(SECONDS_HTTP.length + 1),
        sum: 0,
        count: 0,
      };
      this.routes.set(route, cell);
    }
    const key = (METHOD_INDEX.get(method) ?? METHODS.length) * 1000 + status;
    cell.counts.set(key, (cell.counts.get(key) ?? 0) + 1);
    let i = 0;
    while (i < SECONDS_HTTP.length && seconds > SECONDS_HTTP[i]!) i++;
    cell.buckets[i]!++;
    cell.sum += seconds;
    cell.count++;
  }

  private requestValues() {
    const values = [];
    for (const [route, cell] of this.routes) {
      for (const [key, value] of cell.counts) {
        const method = METHODS[Math.floor(key / 1000)] ?? "other";
        const labels = { surface: cell.surface, route, method, status: String(key % 1000) };
        values.push({ labels, value });
      }
    }
    return values;
  }

  private durationValues(name: string) {
    const values = [];
    for (const [route, cell] of this.routes) {
      const labels = { surface: cell.surface, route };
      let cumulative = 0;
      for (let i = 0; i <= SECONDS_HTTP.length; i++) {
        cumulative += cell.buckets[i]!;
        const le = i < SECONDS_HTTP.length ? String(SECONDS_HTTP[i]) : "+Inf";
        values.push({ metricName: `${name}_bucket`, labels: { le, ...labels }, value: cumulative });
      }
      values.push({ metricName: `${name}_sum`, labels, value: cell.sum });
      values.push({ metricName: `${name}_count`, labels, value: cell.count });
    }
    return values;
  }
}

/** A widget stream's clock, from its request's arrival. */
export interface StreamWatch {
  firstDelta(): void;
  end(outcome: string): void;
}

const NO_WATCH: StreamWatch = { firstDelta() {}, end() {} };

export function watchStream(startedMs: number): StreamWatch {
  const metrics = m;
  if (!metrics) return NO_WATCH;
  metrics.streamsInFlight.inc();
  let seenDelta = false;
  let ended = false;
  return {
    firstDelta() {
      if (seenDelta) return;
      seenDelta = true;
      metrics.streamFirstDelta.observe((performance.now() - startedMs) / 1000);
    },
    end(outcome) {
      if (ended) return;
      ended = true;
      metrics.streamsInFlight.dec();
      metrics.streamsEnded.inc({ outcome });
      metrics.streamReply.observe({ outcome }, (performance.now() - startedMs) / 1000);
    },
  };
}

const MAX_MODELS = 50;
const modelsSeen = new Set<string>();

/** A model name as a label: the first MAX_MODELS seen, then `other` (bots name any model). */
function boundedModel(model: string): string {
  if (modelsSeen.has(model)) return model;
  if (modelsSeen.size >= MAX_MODELS || model.length > 100) return "other";
  modelsSeen.add(model);
  return model;
}

export function recordProviderCall(
  call: { provider: string; model: string; operation: "chat" | "embeddings" },
  outcome: string,
  seconds: number,
  tokens?: { in: number; out: number },
): void {
  if (!m) return;
  const model = boundedModel(call.model);
  const labels = { provider: call.provider, model, operation: call.operation, outcome };
  m.providerCalls.inc(labels);
  m.providerSeconds.observe(labels, seconds);
  if (!tokens) return;
  m.providerTokens.inc({ provider: call.provider, model, direction: "in" }, tokens.in);
  m.providerTokens.inc({ provider: call.provider, model, direction: "out" }, tokens.out);
  m.providerCallTokens.observe({ provider: call.provider, direction: "in" }, tokens.in);
  m.providerCallTokens.observe({ provider: call.provider, direction: "out" }, tokens.out);
}

export function recordRetrieval(seconds: number): void {
  m?.retrievalSeconds.observe(seconds);
}

export function recordEventPublished(type: string): void {
  m?.eventsPublished.inc({ type });
}

export function recordEventsDelivered(channelKind: string, sockets: number): void {
  if (m && sockets > 0) m.eventsDelivered.inc({ channel: channelKind }, sockets);
}

export function recordJob(kind: string, outcome: "done" | "retry" | "failed", seconds: number) {
  if (!m) return;
  m.jobsFinished.inc({ kind, outcome });
  m.jobSeconds.observe({ kind }, seconds);
}

export function recordNotification(channel: "push" | "email", outcome: string): void {
  m?.notifications.inc({ channel, outcome });
}

export function recordWebhook(outcome: string): void {
  m?.webhooks.inc({ outcome });
}

export function recordKvError(command: string): void {
  m?.kvErrors.inc({ command });
}
