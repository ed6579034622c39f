/**
 * Integration API v1, messages: (a) `POST /api/v1/chatbots/{key}/messages`
 * throughput against a zero-latency stub provider, as a ratio to the REST
 * door's trivial procedure (`GET /api/status`) on the same server in the same
 * run; (d) the server's added latency on a message: time to answer minus the
 * stub's own time for the same provider call (the chat completion; the seeded
 * knowledge has no embeddings, so the question is not embedded).
 *
 * Server, stub and load share this process (in-process server on a fresh
 * database: embedded PGlite, or PostgreSQL when DATABASE_URL is set).
 */
import OpenAI from "openai";
import { startTestServer } from "../tests/helpers/test_server.ts";
import { standardSeed, T } from "../tests/helpers/fixtures.ts";
import { startFakeAi } from "../tests/helpers/fake_ai.ts";
import { percentile, realPostgresUrl, withDatabase } from "./support.ts";

const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? "5");
const CONCURRENCY = 16;
const SAMPLES = 200;

function unlimitedSeed() {
  const seed = standardSeed();
  seed.workspaces[0]!.plan = "unlimited";
  return seed;
}

/** Completed requests per second with `CONCURRENCY` loops for `seconds`. */
async function rate(call: (i: number) => Promise<Response>, seconds: number): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  let n = 0;
  const loop = async () => {
    while (performance.now() < until) {
      const res = await call(n++);
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`HTTP ${res.status} during the load`);
      done++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  return done / ((performance.now() - t0) / 1000);
}

async function measure(): Promise<string> {
  const fake = startFakeAi({ reply: "We ship worldwide within 5 business days." });
  const s = await startTestServer({
    seed: unlimitedSeed(),
    env: { AI_BASE_URL: fake.baseUrl, LOG_LEVEL: "error" },
  });
  const headers = {
    authorization: `Bearer ${T.acme.owner.api}`,
    "content-type": "application/json",
    accept: "application/json",
  };
  const message = (i: number) =>
    fetch(`${s.url}/api/v1/chatbots/acme-helper/messages`, {
      method: "POST",
      headers,
      body: JSON.stringify({ message: "How long does shipping take?", visitor_id: `b-${i}` }),
    });
  const status = () => fetch(`${s.url}/api/status`, { headers: { accept: "application/json" } });
  try {
    // Warm-up: JIT, connection pool, prepared statements.
    await rate(message, 1);
    await rate(status, 1);
    const statusRps = await rate(status, SECONDS);
    const messageRps = await rate(message, SECONDS);

    // (d) sequential: server time vs the stub's time for the same calls.
    const client = new OpenAI({ apiKey: "sk-bench", baseURL: fake.baseUrl, maxRetries: 0 });
    const stubTimes: number[] = [];
    const serverTimes: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      let t0 = performance.now();
      await client.chat.completions.create({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: "How long does shipping take?" }],
      });
      stubTimes.push(performance.now() - t0);
      t0 = performance.now();
      const res = await message(100_000 + i);
      await res.arrayBuffer();
      serverTimes.push(performance.now() - t0);
    }
    const added = (p: number) => percentile(serverTimes, p) - percentile(stubTimes, p);
    const db = s.deps.db.embedded ? "embedded PGlite (pgvector on)" : "PostgreSQL (no pgvector)";
    const f1 = (n: number) => n.toFixed(1);
    return [
      `### v1 messages on ${s.deps.db.embedded ? "embedded PGlite" : "PostgreSQL"}`,
      "",
      `Database: ${db}; stub provider with zero latency; ${CONCURRENCY} concurrent loops for ` +
      `${SECONDS} s each, same server, same run.`,
      "",
      "| Measure | Value |",
      "|---|---|",
      `| GET /api/status (REST door, trivial procedure) | ${Math.round(statusRps)} req/s |`,
      `| POST /api/v1/chatbots/{key}/messages | ${Math.round(messageRps)} req/s |`,
      `| Ratio messages / trivial | ${(messageRps / statusRps).toFixed(3)} |`,
      `| Message, time to answer p50 / p99 (sequential, ${SAMPLES}) | ` +
      `${f1(percentile(serverTimes, 0.5))} / ${f1(percentile(serverTimes, 0.99))} ms |`,
      `| Stub's own time for the same calls p50 / p99 | ` +
      `${f1(percentile(stubTimes, 0.5))} / ${f1(percentile(stubTimes, 0.99))} ms |`,
      `| Server's added latency p50 / p99 | ${f1(added(0.5))} / ${f1(added(0.99))} ms |`,
    ].join("\n");
  } finally {
    await s.stop();
    await fake.close();
  }
}

export async function run(): Promise<string> {
  const sections = [await withDatabase(null, measure)];
  const real = await realPostgresUrl();
  if (real) sections.push(await withDatabase(real, measure));
  return sections.join("\n\n");
}

if (import.meta.main) console.log(await run());
