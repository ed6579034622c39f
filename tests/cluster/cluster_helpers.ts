/**
 * A test cluster: three instances behind nginx (cli/cluster/start_cluster.ts)
 * on a fresh PostgreSQL database and Redis prefix, seeded with the standard
 * seed and answering through the fake AI; and a stream reader that stamps
 * each SSE event with the moment it arrived.
 */
import { type Cluster, startCluster } from "../../cli/cluster/start_cluster.ts";
import { createTestDatabase } from "../helpers/test_server.ts";
import { standardSeed } from "../helpers/fixtures.ts";
import { type FakeAi, startFakeAi } from "../helpers/fake_ai.ts";
import { parseSse, type SseEvent } from "../widget/widget_client.ts";
import { freshLoopbackAddress } from "../helpers/client_at.ts";

const APP_KEY = "base64:" + btoa(String.fromCharCode(...new Uint8Array(32).fill(7)));

export interface TestCluster {
  cluster: Cluster;
  ai: FakeAi;
  /** The cluster's database (benchmarks read its statistics). */
  databaseUrl: string;
  close(): Promise<void>;
}

export async function startTestCluster(
  opts: {
    instances?: number;
    chunkDelayMs?: number;
    env?: Record<string, string>;
    /** The seeded test plan's monthly message limit (long runs lift it). */
    monthlyLimit?: number;
    /** Start instances again after a crash, as `deno task cluster` does. */
    supervise?: boolean;
  } = {},
): Promise<TestCluster> {
  const db = (await createTestDatabase())!;
  const dataDir = await Deno.makeTempDir({ prefix: "parley-cluster-" });
  const seedFile = `${dataDir}/seed.json`;
  await Deno.writeTextFile(
    seedFile,
    JSON.stringify(standardSeed({ monthlyLimit: opts.monthlyLimit })),
  );
  const ai = startFakeAi({ reply: "We ship to every country in Europe within five days." });
  ai.chunkDelayMs = opts.chunkDelayMs ?? 0;
  let cluster: Cluster;
  try {
    cluster = await startCluster({
      instances: opts.instances ?? 3,
      port: 0,
      supervise: opts.supervise,
      dataDir,
      env: {
        DATABASE_URL: db.url,
        REDIS_URL: Deno.env.get("REDIS_URL")!,
        REDIS_PREFIX: `t${crypto.randomUUID()}:`,
        APP_KEY,
        SEED_FILE: seedFile,
        DEMO: "0",
        LOG_LEVEL: "error",
        AI_BASE_URL: ai.baseUrl,
        CRAWL_ALLOW_PRIVATE: "1",
        ...opts.env,
      },
    });
  } catch (err) {
    await ai.close();
    await db.drop();
    throw err;
  }
  return {
    cluster,
    ai,
    databaseUrl: db.url,
    close: async () => {
      await cluster.stop();
      await ai.close();
      await db.drop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}

export type StampedEvent = SseEvent & { atMs: number };

/**
 * POST the widget stream and read it as it arrives, each event stamped (ms since the request).
 * Each call comes from a loopback address of its own (`from`, or a fresh one), as a distinct
 * visitor would through the balancer: no X-Forwarded-For is sent.
 */
export async function readStream(
  baseUrl: string,
  key: string,
  body: unknown,
  from: string = freshLoopbackAddress(),
): Promise<{ status: number; events: StampedEvent[]; error?: string }> {
  using client = Deno.createHttpClient({ localAddress: from });
  const started = performance.now();
  const res = await fetch(`${baseUrl}/widget/${key}/stream`, {
    method: "POST",
    client,
    headers: { accept: "text/event-stream", "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const events: StampedEvent[] = [];
  if (!res.body || !(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    await res.body?.cancel();
    return { status: res.status, events };
  }
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for await (const chunk of res.body) {
      buffer += decoder.decode(chunk, { stream: true });
      const end = buffer.lastIndexOf("\n\n");
      if (end === -1) continue;
      const atMs = performance.now() - started;
      for (const e of parseSse(buffer.slice(0, end + 2))) events.push({ ...e, atMs });
      buffer = buffer.slice(end + 2);
    }
  } catch (err) {
    // A connection cut mid-stream: what arrived before it is still told.
    return { status: res.status, events, error: err instanceof Error ? err.message : String(err) };
  }
  return { status: res.status, events };
}
