/**
 * Like tests/helpers/test_server.ts, but the test also gets the server's own
 * dependencies (database client, APP_KEY, clock), so it can act behind the
 * HTTP surface: revoke a token, dump rows, close the database to force a fault.
 */
import { startServer } from "../../main.ts";
import type { AppDeps } from "../../domain/deps.ts";
import { createTestDatabase } from "../helpers/test_server.ts";

export const TEST_APP_KEY = "base64:" + btoa(String.fromCharCode(...new Uint8Array(32).fill(7)));

export interface ServerWithDeps {
  url: string;
  deps: AppDeps;
  dataDir: string;
  databaseUrl: string | null;
  stop(): Promise<void>;
}

export interface Storage {
  dataDir: string;
  databaseUrl: string | null;
  drop(): Promise<void>;
}

/** A data dir, and a fresh PostgreSQL database when DATABASE_URL is set. */
export async function createStorage(): Promise<Storage> {
  const dataDir = await Deno.makeTempDir({ prefix: "parley-found-" });
  const db = await createTestDatabase();
  return {
    dataDir,
    databaseUrl: db?.url ?? null,
    drop: async () => {
      await db?.drop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}

/** Environment for a server (in process or a subprocess) on `storage`. */
export function serverEnv(storage: Storage, extra: Record<string, string> = {}) {
  const env: Record<string, string> = {
    PORT: "0",
    // A port of its own, never PORT + 1 (the default): under a parallel run that one
    // may belong to another test's server, and the process would then never be ready.
    REALTIME_PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: storage.dataDir,
    DEMO: "0",
    LOG_LEVEL: "error",
    APP_KEY: TEST_APP_KEY,
    DATABASE_URL: storage.databaseUrl ?? "",
    REDIS_URL: Deno.env.get("REDIS_URL") ?? "",
    REDIS_PREFIX: `t${crypto.randomUUID()}:`,
    ...extra,
  };
  return env;
}

/** Start in this process on `storage`; `seed` is written to a file and applied. */
export async function startOn(
  storage: Storage,
  opts: { seed?: unknown; env?: Record<string, string> } = {},
): Promise<ServerWithDeps> {
  const env = serverEnv(storage, opts.env);
  if (opts.seed !== undefined) {
    env.SEED_FILE = `${storage.dataDir}/seed-${crypto.randomUUID()}.json`;
    await Deno.writeTextFile(env.SEED_FILE, JSON.stringify(opts.seed));
  }
  const started = await startServer(env);
  return {
    url: `http://127.0.0.1:${started.port}`,
    deps: started.services.deps,
    dataDir: storage.dataDir,
    databaseUrl: storage.databaseUrl,
    stop: () => started.shutdown(),
  };
}

export { freePort, waitReady } from "../helpers/net.ts";
