/**
 * One Parley instance in a process of its own, for the tests that measure the
 * server's own resident memory: `deno test --parallel` runs test files as
 * workers of one process, so `Deno.memoryUsage().rss` there counts every
 * other file's allocations too (CI saw +379 MiB from neighbours). Here the
 * figure is the server's alone, read from /proc.
 */
import { freePort, type Instance, spawnInstance } from "../../cli/cluster/start_cluster.ts";
import { createTestDatabase } from "./test_server.ts";

const APP_KEY = "base64:" + btoa(String.fromCharCode(...new Uint8Array(32).fill(9)));

export interface ServerProcess {
  instance: Instance;
  /** The process's resident set size in bytes (VmRSS). */
  rss(): Promise<number>;
  stop(): Promise<void>;
}

/** How long a stopping server may take before it is killed. */
const STOP_GRACE_MS = 15_000;

/**
 * SIGTERM, and SIGKILL if the process has not exited within `graceMs`: with
 * OTEL_DENO=true, Deno 2.9 sometimes never returns from `Deno.exit` after a
 * clean shutdown (denoland/deno#33157; about one stop in six here).
 */
export async function stopWithin(instance: Instance, graceMs: number): Promise<void> {
  const exited = instance.kill("SIGTERM");
  const timer = setTimeout(() => instance.kill("SIGKILL"), graceMs);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}

export async function startServerProcess(
  opts: { env?: Record<string, string>; seed?: unknown } = {},
): Promise<ServerProcess> {
  const dataDir = await Deno.makeTempDir({ prefix: "parley-proc-" });
  const db = await createTestDatabase();
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    DEMO: "0",
    LOG_LEVEL: "error",
    APP_KEY,
    ...(db ? { DATABASE_URL: db.url } : {}),
    ...(Deno.env.get("REDIS_URL")
      ? { REDIS_URL: Deno.env.get("REDIS_URL")!, REDIS_PREFIX: `t${crypto.randomUUID()}:` }
      : {}),
    ...(opts.env ?? {}),
  };
  if (opts.seed !== undefined) {
    env.SEED_FILE = `${dataDir}/seed.json`;
    await Deno.writeTextFile(env.SEED_FILE, JSON.stringify(opts.seed));
  }
  const instance = spawnInstance(1, freePort(), freePort(), env, "null");
  const cleanup = async () => {
    await db?.drop().catch(() => {});
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  };
  try {
    await instance.start();
  } catch (err) {
    if (instance.running) await instance.kill("SIGKILL");
    await cleanup();
    throw err;
  }
  return {
    instance,
    rss: async () => {
      const status = await Deno.readTextFile(`/proc/${instance.pid}/status`);
      const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
      if (!kb) throw new Error("no VmRSS in /proc/<pid>/status");
      return Number(kb) * 1024;
    },
    stop: async () => {
      if (instance.running) await stopWithin(instance, STOP_GRACE_MS);
      await cleanup();
    },
  };
}
