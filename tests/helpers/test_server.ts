/**
 * Starts the real server in this process on a free port, on a fresh database:
 * a new embedded data dir, or (when DATABASE_URL is set, as in CI's second
 * run) a new PostgreSQL database created here and dropped on stop. With
 * REDIS_URL set, each server gets its own key prefix.
 */
import postgres from "postgres";
import { startServer } from "../../main.ts";
import type { AppDeps } from "../../domain/deps.ts";
import { seedEmbeddedDataDir } from "./embedded_template.ts";

export interface TestServer {
  url: string;
  port: number;
  /** The realtime socket server's own port (`ws://127.0.0.1:{realtimePort}/app/{key}`). */
  realtimePort: number;
  dataDir: string;
  env: Record<string, string>;
  /** The running server's services, to arrange state no HTTP surface offers yet. */
  deps: AppDeps;
  stop(): Promise<void>;
}

export interface TestServerOptions {
  /** Seed object, written to a temp file and passed as SEED_FILE. */
  seed?: unknown;
  env?: Record<string, string>;
  /** Reuse an existing data dir / database URL (restart tests). */
  dataDir?: string;
  databaseUrl?: string;
}

const APP_KEY = "base64:" + btoa(String.fromCharCode(...new Uint8Array(32).fill(7)));

/** A fresh database on the real server named by DATABASE_URL, or null in embedded mode. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> } | null> {
  const base = Deno.env.get("DATABASE_URL");
  if (!base) return null;
  const name = `parley_t_${crypto.randomUUID().replace(/-/g, "").slice(0, 16)}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const a = postgres(base, { max: 1, onnotice: () => {} });
      await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? await Deno.makeTempDir({ prefix: "parley-test-" });
  const db = opts.databaseUrl ? null : await createTestDatabase();
  // A fresh embedded server starts from a migrated copy (0.3 s instead of 3 to 6 s).
  if (!db && !opts.databaseUrl && !opts.dataDir) await seedEmbeddedDataDir(dataDir);
  const env: Record<string, string> = {
    PORT: "0",
    REALTIME_PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    DEMO: "0",
    LOG_LEVEL: "error",
    APP_KEY,
    CRAWL_ALLOW_PRIVATE: "1",
    ...(db || opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl ?? db!.url } : {}),
    ...(Deno.env.get("REDIS_URL")
      ? { REDIS_URL: Deno.env.get("REDIS_URL")!, REDIS_PREFIX: `t${crypto.randomUUID()}:` }
      : {}),
    ...(opts.env ?? {}),
  };
  if (opts.seed !== undefined) {
    const seedFile = `${dataDir}/seed.json`;
    await Deno.writeTextFile(seedFile, JSON.stringify(opts.seed));
    env.SEED_FILE = seedFile;
  }
  const started = await startServer(env);
  const url = `http://127.0.0.1:${started.port}`;
  env.BASE_URL ??= url;
  return {
    url,
    port: started.port,
    realtimePort: started.realtimePort,
    dataDir,
    env,
    deps: started.services.deps,
    stop: async () => {
      await started.shutdown();
      if (db) await db.drop();
      if (!opts.dataDir) await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}

/** Options for Deno.test: servers keep sockets and timers open between steps. */
export const serverTestOptions = { sanitizeOps: false, sanitizeResources: false } as const;
