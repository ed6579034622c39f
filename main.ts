/**
 * Parley server entry point: read the configuration, open the services,
 * start the workers, serve, and drain cleanly on SIGINT/SIGTERM.
 */
import { ConfigError, loadConfig } from "./app/config.ts";
import { openServices } from "./app/services.ts";
import { createHttpApp } from "./app/http_app.ts";
import { startWorkers } from "./app/workers.ts";
import { describeError } from "./app/logger.ts";
import { startRealtimeFeed } from "./domain/realtime/realtime_feed.ts";
import type { DemoCredentials } from "./domain/seed/demo_seed.ts";
import { EmbeddedDatabaseBusy } from "./db/embedded.ts";
import { anyProviderKeyStored } from "./db/provider_keys.ts";
import { logStrayRejections } from "./app/stray_rejections.ts";
import { warmThesaurus } from "./domain/knowledge/thesaurus.ts";

export async function startServer(env?: Record<string, string | undefined>) {
  const config = loadConfig(env);
  const services = await openServices(config);
  logStrayRejections(services.deps.log);
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
  let closing: Promise<void> | null = null;
  const shutdown = () =>
    closing ??= (async () => {
      await handler.drain(); // in-flight requests finish, uploads included
      // Open sockets would keep the server from shutting down; clients reconnect elsewhere.
      await services.deps.realtime.stop();
      await server.shutdown(); // stops accepting, lets in-flight requests finish
      await Promise.all(workers.map((w) => w.stop()));
      await stopFeed();
      await services.close();
    })();
  return { server, port, services, shutdown };
}

export function banner(
  url: string,
  demo: DemoCredentials | null,
  ai: { aiBaseUrl: string | null; aiApiKey: string | null; keysStored: boolean },
): string {
  const lines = [
    `Parley is running at ${url}`,
    `  API reference:  ${url}/api/docs`,
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
  const width = Math.max(...lines.map((l) => l.length)) + 2;
  const bar = "─".repeat(width);
  return [`┌${bar}┐`, ...lines.map((l) => `│ ${l.padEnd(width - 1)}│`), `└${bar}┘`].join("\n");
}

if (import.meta.main) {
  try {
    const { services, shutdown } = await startServer();
    const keysStored = await anyProviderKeyStored(services.deps.sql);
    console.log(
      banner(services.deps.config.baseUrl, services.demo, { ...services.deps.config, keysStored }),
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
