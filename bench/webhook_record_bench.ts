/**
 * What fixing a webhook payload at recording costs the recording statement
 * (issue 36, item 4): `recordEvent` with the conversation captured (the
 * scalar subquery db/webhook_payloads.ts adds) against the same statement
 * without it, in alternating blocks on one server; the conversation read as
 * a statement of its own (what rendering the body in code at recording would
 * add, and what a first attempt no longer sends); and the statements a
 * recording sends (postgres.js's `debug` hook, PostgreSQL only). Embedded,
 * then PostgreSQL when reachable.
 */
import postgres from "postgres";
import { startTestServer } from "../tests/helpers/test_server.ts";
import { standardSeed, T } from "../tests/helpers/fixtures.ts";
import { startFakeAi } from "../tests/helpers/fake_ai.ts";
import { postStream } from "../tests/widget/widget_client.ts";
import { recordEvent } from "../db/webhook_deliveries.ts";
import { webhookConversation } from "../db/webhook_payloads.ts";
import type { Executor } from "../db/client.ts";
import { onEachDatabase, percentile } from "./support.ts";

const PER_BLOCK = Number(Deno.env.get("BENCH_RECORD_PER_BLOCK") ?? "200");
const BLOCKS = Number(Deno.env.get("BENCH_RECORD_BLOCKS") ?? "6");

async function measure(): Promise<string> {
  const fake = startFakeAi({ reply: "Hello." });
  const s = await startTestServer({
    seed: standardSeed(),
    env: {
      AI_BASE_URL: fake.baseUrl,
      TRUSTED_PROXIES: "127.0.0.1",
      WEBHOOK_ALLOW_HOSTS: "127.0.0.1:9",
      WEBHOOK_CONCURRENCY: "0", // recorded, never sent: only the recording is measured
    },
  });
  try {
    const created = await fetch(`${s.url}/api/portal/webhooks`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${T.acme.owner.portal}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ url: "http://127.0.0.1:9/hook", events: ["conversation.resolved"] }),
    });
    if (created.status !== 201) throw new Error(`endpoint: ${created.status}`);
    const turn = await postStream(s.url, "acme-helper", { visitor_id: "v_rec", message: "Hi" });
    const conversation = turn.events[0]!.data.conversation_id as string;
    const [row] = await s.deps.sql<{ workspace_id: number }[]>`
      SELECT workspace_id FROM conversations WHERE public_id = ${conversation}`;
    const workspaceId = row!.workspace_id;

    let n = 0;
    const record = (sql: Executor, captured: boolean) => {
      const key = `bench:${n++}`;
      return recordEvent(sql, {
        publicId: key,
        workspaceId,
        type: "conversation.resolved",
        dedupeKey: key,
        orderingKey: conversation,
        conversationId: captured ? conversation : null,
        source: { type: "conversation.updated", reason: "resolve", conversationId: conversation },
        now: new Date(),
      });
    };

    const times = { without: [] as number[], with: [] as number[], read: [] as number[] };
    for (let i = 0; i < PER_BLOCK; i++) await record(s.deps.sql, i % 2 === 0); // warm up
    for (let b = 0; b < BLOCKS * 2; b++) {
      const captured = b % 2 === 1;
      for (let i = 0; i < PER_BLOCK; i++) {
        const t0 = performance.now();
        await record(s.deps.sql, captured);
        (captured ? times.with : times.without).push(performance.now() - t0);
      }
    }
    for (let i = 0; i < PER_BLOCK * BLOCKS; i++) {
      const t0 = performance.now();
      await webhookConversation(s.deps.sql, workspaceId, conversation);
      times.read.push(performance.now() - t0);
    }
    const [last] = await s.deps.sql<{ conversation: Record<string, unknown> | null }[]>`
      SELECT conversation FROM webhook_events WHERE dedupe_key = ${`bench:${n - 1}`}`;
    if (!last?.conversation) throw new Error("the last recording captured no conversation");

    let statements = "n/a";
    if (!s.deps.db.embedded) {
      let sent = 0;
      const counted = postgres(s.env.DATABASE_URL!, {
        max: 1,
        onnotice: () => {},
        debug: () => void sent++,
      });
      await counted`SELECT 1`;
      sent = 0;
      await record(counted as unknown as Executor, true);
      statements = String(sent);
      await counted.end();
    }

    const ms = (xs: number[]) =>
      `${percentile(xs, 0.5).toFixed(3)} / ${percentile(xs, 0.9).toFixed(3)} ms`;
    return `| ${s.deps.db.embedded ? "embedded PGlite" : "PostgreSQL"} | ${ms(times.without)} | ${
      ms(times.with)
    } | ${ms(times.read)} | ${statements} |`;
  } finally {
    await s.stop();
    await fake.close();
  }
}

export async function run(): Promise<string> {
  const rows = await onEachDatabase(measure);
  return [
    "### Recording a webhook event: the conversation captured or not",
    "",
    `\`recordEvent\` for one subscribed endpoint, ${BLOCKS} alternating blocks of ${PER_BLOCK} ` +
    "each way; then the conversation read as a statement of its own.",
    "",
    "| Database | without capture p50 / p90 | with capture p50 / p90 | the read alone p50 / p90 | " +
    "statements per recording |",
    "|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}

if (import.meta.main) console.log(await run());
