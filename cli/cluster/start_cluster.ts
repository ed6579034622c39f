/**
 * N Parley instances on one PostgreSQL and one Redis, behind nginx: the
 * topology of compose.yaml, run as local processes (`deno task cluster`, and
 * the load-balancer tests). Every instance shares the data directory (uploads,
 * generated keys) and the settings that must match (APP_KEY and what derives
 * from it, the VAPID pair), and trusts only the balancer's X-Forwarded-For.
 */
import { ensureNginx, type RunningNginx, startNginx } from "./nginx.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

export interface ClusterOptions {
  instances: number;
  /** The balancer's port (0: a free one). */
  port: number;
  /** DATABASE_URL, REDIS_URL, APP_KEY and any other setting every instance gets. */
  env: Record<string, string>;
  dataDir: string;
  /** Where each instance's output goes: inherited (the CLI) or discarded (tests). */
  output?: "inherit" | "null";
  log?: (line: string) => void;
  /**
   * Start an instance again when it exits without being asked to (a crash, an
   * out-of-memory kill), after a back-off: what compose's `restart:
   * unless-stopped` does for the containers.
   */
  supervise?: boolean;
}

export interface Instance {
  index: number;
  port: number;
  /** The instance's own socket server (REALTIME_PORT). */
  realtimePort: number;
  url: string;
  readonly running: boolean;
  /** The current process's id (for its memory, in benchmarks). */
  readonly pid: number;
  /** Signal the process and wait for it to exit. */
  kill(signal: Deno.Signal): Promise<Deno.CommandStatus>;
  /** Start it again on the same port (after a kill), ready when this resolves. */
  start(): Promise<void>;
  /**
   * Called when the process exits without `kill()` having been asked for it
   * (with the time it ran, ms); set by the supervisor.
   */
  onUnexpectedExit?: (ranMs: number) => void;
}

export interface Cluster {
  /** The one address clients use: the balancer. */
  url: string;
  port: number;
  instances: Instance[];
  nginxConfig: string;
  stop(): Promise<void>;
}

export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Polls `url` until it answers 200 (or the process exits). */
async function waitReady(url: string, exited: () => boolean, timeoutMs = 90_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until && !exited()) {
    try {
      const res = await fetch(url);
      await res.body?.cancel();
      if (res.ok) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} was not ready (${exited() ? "the process exited" : "timed out"})`);
}

/** One instance as a process of its own (not started: call `start()`); the tests use it alone too. */
export function spawnInstance(
  index: number,
  port: number,
  realtimePort: number,
  env: Record<string, string>,
  output: "inherit" | "null",
): Instance {
  let child: Deno.ChildProcess | null = null;
  let running = false;
  /** Processes asked to stop: their exit is no crash. */
  const expected = new WeakSet<Deno.ChildProcess>();
  const url = `http://127.0.0.1:${port}`;
  const instance: Instance = {
    index,
    port,
    realtimePort,
    url,
    get running() {
      return running;
    },
    get pid() {
      return child?.pid ?? 0;
    },
    async kill(signal) {
      const c = child!;
      expected.add(c);
      try {
        c.kill(signal);
      } catch { /* already gone */ }
      const status = await c.status;
      running = false;
      return status;
    },
    async start() {
      const c = new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-all", MAIN],
        env: {
          ...env,
          PORT: String(port),
          REALTIME_PORT: String(realtimePort),
          HOST: "127.0.0.1",
        },
        stdin: "null",
        stdout: output,
        stderr: output,
      }).spawn();
      child = c;
      running = true;
      const startedAt = Date.now();
      c.status.then(() => {
        if (child === c) running = false;
        if (!expected.has(c)) instance.onUnexpectedExit?.(Date.now() - startedAt);
      });
      await waitReady(`${url}/readyz`, () => !running);
    },
  };
  return instance;
}

export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const log = opts.log ?? (() => {});
  const nginxBinary = await ensureNginx(log);
  const port = opts.port || freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    BASE_URL: url,
    // Sockets go through the balancer too, to whichever instance's socket server.
    REALTIME_URL: `ws://127.0.0.1:${port}`,
    TRUSTED_PROXIES: "127.0.0.1",
    ...opts.env,
    DATA_DIR: opts.dataDir,
  };
  const instances = Array.from(
    { length: opts.instances },
    (_, i) => spawnInstance(i + 1, freePort(), freePort(), env, opts.output ?? "null"),
  );
  let nginx: RunningNginx | null = null;
  const supervisor = opts.supervise ? superviseInstances(instances, log) : null;
  const stop = async () => {
    supervisor?.stop();
    await nginx?.stop();
    await Promise.all(instances.filter((i) => i.running).map((i) => i.kill("SIGTERM")));
  };
  try {
    // The first instance applies migrations and seeds; the others then find them done.
    await instances[0]!.start();
    await Promise.all(instances.slice(1).map((i) => i.start()));
    nginx = await startNginx(
      nginxBinary,
      instances.map((i) => ({
        http: `127.0.0.1:${i.port}`,
        socket: `127.0.0.1:${i.realtimePort}`,
      })),
      `127.0.0.1:${port}`,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, port, instances, nginxConfig: nginx.configPath, stop };
}

/** The first restart's delay; it doubles after each quick crash, up to the cap. */
const RESTART_FIRST_MS = 1_000;
const RESTART_MAX_MS = 30_000;
/** An instance that ran this long before exiting starts again after the first delay. */
const HEALTHY_RUN_MS = 60_000;

/**
 * Starts each instance again after it exits on its own: after 1 s, then 2, 4,
 * ... up to 30 s while it keeps failing (a crash loop must not spin), and
 * after 1 s again once it had run for a minute.
 */
export function superviseInstances(
  instances: Instance[],
  log: (line: string) => void,
): { stop(): void } {
  let stopped = false;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  for (const instance of instances) {
    let delay = RESTART_FIRST_MS;
    const restart = () => {
      if (stopped) return;
      instance.start().then(
        () => log(`cluster: instance ${instance.index} is back on ${instance.url}`),
        // Its exit before it was ready has already scheduled the next try.
        () => {},
      );
    };
    instance.onUnexpectedExit = (ranMs) => {
      if (stopped) return;
      delay = ranMs >= HEALTHY_RUN_MS ? RESTART_FIRST_MS : delay;
      log(`cluster: instance ${instance.index} exited; starting it again in ${delay / 1000} s`);
      const timer = setTimeout(() => {
        timers.delete(timer);
        restart();
      }, delay);
      timers.add(timer);
      delay = Math.min(delay * 2, RESTART_MAX_MS);
    };
  }
  return {
    stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      for (const instance of instances) instance.onUnexpectedExit = undefined;
    },
  };
}
