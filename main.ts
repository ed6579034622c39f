/**
 * Parley server entry point: read the configuration, open the services,
 * start the workers, serve, and drain cleanly on SIGINT/SIGTERM.
 */
import { ConfigError, loadConfig } from "./app/config.ts";
import { openServices } from "./app/services.ts";
import { createHttpApp } from "./app/http_app.ts";
import { startWorkers } from "./app/workers.ts";
import { describeError, writeToTerminal } from "./app/logger.ts";
import { startRealtimeFeed } from "./domain/realtime/realtime_feed.ts";
import type { DemoCredentials } from "./domain/seed/demo_seed.ts";
import { EmbeddedDatabaseBusy } from "./db/embedded.ts";
import { anyProviderKeyStored } from "./db/provider_keys.ts";
import { logStrayRejections } from "./app/stray_rejections.ts";
import { warmThesaurus } from "./domain/knowledge/thesaurus.ts";
import { bodiesSettled } from "./routers/doors/request_body.ts";
import { startSocketServer } from "./routers/doors/socket_server.ts";
import { enableMetrics } from "./domain/observability/metrics.ts";
import { metricsSource } from "./domain/observability/metrics_source.ts";
import { tracingOn } from "./domain/observability/tracing.ts";

export async function startServer(env?: Record<string, string | undefined>) {
  const config = loadConfig(env);
  const services = await openServices(config);
  logStrayRejections(services.deps.log);
  // The realtime sockets have a listener of their own, which can cap frames (docs/realtime.md).
  const sockets = await startSocketServer(services.deps, {
    port: config.realtimePort,
    hostname: config.hostname,
  }).catch(async (err) => {
    await services.close();
    throw err;
  });
  // Metrics are kept only when a scraper can read them (METRICS_TOKEN, docs/operations.md).
  const stopMetrics = config.metricsToken ? enableMetrics(metricsSource(services.deps)) : null;
  const workers = startWorkers(services.deps);
  const stopFeed = await startRealtimeFeed(services.deps);
  const handler = createHttpApp(services.deps);
  const server = Deno.serve({
    port: config.port,
    hostname: config.hostname,
    onListen: () => {},
  }, handler);
  // The thesaurus's index files are read now, after the server listens, not on the first question.
  setTimeout(() => {
    const why = warmThesaurus();
    if (why) services.deps.log.warn("thesaurus unavailable; retrieval goes on without it", { why });
  }, 0);
  const port = (server.addr as Deno.NetAddr).port;
  // PORT=0 picks a free port; the default BASE_URL must name the real one.
  const givenBaseUrl = env ? env.BASE_URL : Deno.env.get("BASE_URL");
  if (!givenBaseUrl) config.baseUrl = `http://localhost:${port}`;
  const realtimePort = sockets.port;
  config.realtimeUrl ??= defaultRealtimeUrl(config.baseUrl, realtimePort);
  let closing: Promise<void> | null = null;
  // A graceful stop, for rolling restarts behind a balancer (docs/deployment.md):
  // bodies still arriving are read in full (Deno's shutdown would cut them),
  // then no new connection is accepted (a balancer's connect fails and it tries
  // the next instance, which is always safe), requests in flight are answered,
  // sockets are told to reconnect (to another instance), and streams get up to
  // SHUTDOWN_GRACE_SECONDS to finish.
  const shutdown = () =>
    closing ??= (async () => {
      const grace = config.shutdownGraceSeconds * 1000;
      handler.drain(); // /readyz answers 503 from now on
      await bodiesSettled(grace);
      const stopped = server.shutdown();
      await services.deps.realtime.stop();
      await sockets.close();
      await Promise.race([stopped, delay(grace)]);
      await Promise.all(workers.map((w) => w.stop()));
      await stopFeed();
      stopMetrics?.();
      await services.close();
    })();
  return { server, port, realtimePort, services, shutdown };
}

/** BASE_URL's host on the socket server's port, `wss:` when BASE_URL is `https:`. */
function defaultRealtimeUrl(baseUrl: string, port: number): string {
  const url = new URL(baseUrl);
  return `${url.protocol === "https:" ? "wss" : "ws"}://${url.hostname}:${port}`;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    Deno.unrefTimer(timer);
  });
}

export function banner(
  url: string,
  demo: DemoCredentials | null,
  ai: { aiBaseUrl: string | null; aiApiKey: string | null; keysStored: boolean },
  observability: { metricsToken: string | null; tracing: boolean } = {
    metricsToken: null,
    tracing: false,
  },
): string {
  const lines = [
    `Parley is running at ${url}`,
    `  API reference:  ${url}/api/docs`,
    `  Dashboard:      ${url}/dashboard${demo ? " (owners: bots, team, settings)" : ""}`,
    `  Agent inbox:    ${url}/inbox${demo ? " (sign in with the owner e-mail below)" : ""}`,
  ];
  if (demo) {
    lines.push(`  Demo page:      ${url}/demo`);
    lines.push(`  Owner e-mail:   ${demo.email}`);
    lines.push(`  Password:       ${demo.password ?? "(shown on the first start only)"}`);
    lines.push(`  Settings token: ${demo.token ?? "(shown on the first start only)"}`);
    lines.push(`  Demo bot key:   ${demo.botKey}`);
  }
  if (ai.aiBaseUrl) lines.push(`  AI models:      every provider at ${ai.aiBaseUrl}`);
  else if (ai.aiApiKey) lines.push("  AI models:      AI_API_KEY for workspaces without a key");
  else if (ai.keysStored) lines.push("  AI models:      the workspaces' stored provider keys");
  else {
    // The first thing a new user needs: without a model the bot answers 502.
    lines.push(
      "  No AI key yet? Stop the server, run: deno task admin key:set demo provider_1 <key>",
    );
    lines.push(
      "  or start with AI_API_KEY=<key> or AI_BASE_URL=<OpenAI-compatible URL> (docs/models.md)",
    );
  }
  lines.push(
    observability.metricsToken
      ? `  Metrics:        ${url}/metrics (Authorization: Bearer $METRICS_TOKEN)`
      : "  Metrics:        off (set METRICS_TOKEN to scrape /metrics; docs/operations.md)",
  );
  if (observability.tracing) {
    lines.push(
      "  Traces:         OpenTelemetry over OTLP (OTEL_DENO, OTEL_EXPORTER_OTLP_ENDPOINT)",
    );
  }
  const width = Math.max(...lines.map((l) => l.length)) + 2;
  const bar = "─".repeat(width);
  return [`┌${bar}┐`, ...lines.map((l) => `│ ${l.padEnd(width - 1)}│`), `└${bar}┘`].join("\n");
}

if (import.meta.main) {
  try {
    const { services, shutdown } = await startServer();
    const keysStored = await anyProviderKeyStored(services.deps.sql);
    writeToTerminal(
      banner(
        services.deps.config.baseUrl,
        services.demo,
        { ...services.deps.config, keysStored },
        { metricsToken: services.deps.config.metricsToken, tracing: tracingOn },
      ),
    );
    for (const sig of ["SIGINT", "SIGTERM"] as const) {
      Deno.addSignalListener(sig, async () => {
        // Say so: draining requests and sockets can take a moment, and silence looks like a hang.
        console.log("Stopping Parley: finishing requests in flight, closing sockets…");
        await shutdown();
        console.log("Parley stopped.");
        Deno.exit(0);
      });
    }
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
    } else if (err instanceof EmbeddedDatabaseBusy) {
      console.error(err.message); // a second start on the same DATA_DIR: one plain line
    } else {
      console.error(JSON.stringify({ level: "error", msg: "start failed", ...describeError(err) }));
    }
    Deno.exit(1);
  }
}
