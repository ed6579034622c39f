/**
 * A second instance of the server in its own process (`deno run main.ts`), on
 * the first one's database, Redis prefix and keys (`env` from
 * startTestServer), for tests of what crosses instances. PostgreSQL and Redis
 * only: the embedded database belongs to one process.
 */
import { freePort, waitReady } from "./net.ts";

export interface SecondInstance {
  url: string;
  port: number;
  realtimePort: number;
  stop(): Promise<void>;
}

export async function startSecondInstance(env: Record<string, string>): Promise<SecondInstance> {
  const port = freePort();
  const realtimePort = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", new URL("../../main.ts", import.meta.url).pathname],
    env: {
      ...env,
      PORT: String(port),
      REALTIME_PORT: String(realtimePort),
      BASE_URL: `http://127.0.0.1:${port}`,
      SEED_FILE: "",
      DEMO: "0",
      LOG_LEVEL: "error",
    },
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  await waitReady(`${url}/readyz`);
  return {
    url,
    port,
    realtimePort,
    stop: async () => {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}
