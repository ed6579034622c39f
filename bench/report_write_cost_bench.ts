/**
 * What keeping the report's counts costs a message write (migration 0250's
 * triggers): `appendMessage` (the statement the widget's first reply and an
 * agent's reply send) timed with the triggers on and off, in alternating
 * rounds on the same conversations so the machine's noise falls on both.
 * A visitor message (the hottest path: one grouped upsert) and an AI reply
 * with tokens (the upsert and, the first time, the conversation's fact).
 */
import { startTestServer } from "../tests/helpers/test_server.ts";
import { standardSeed } from "../tests/helpers/fixtures.ts";
import { appendMessage } from "../db/messages.ts";
import { percentile, realPostgresUrl, withDatabase } from "./support.ts";

const PER_ROUND = Number(Deno.env.get("BENCH_WRITE_PER_ROUND") ?? "200");
const ROUNDS = Number(Deno.env.get("BENCH_WRITE_ROUNDS") ?? "4");
const TRIGGERS = ["messages_report_added"];

async function measure(label: string): Promise<string> {
  const s = await startTestServer({ seed: standardSeed(), env: {} });
  try {
    const sql = s.deps.sql;
    const [w] = await sql<{ id: number; bot: number }[]>`
      SELECT w.id::int, (SELECT min(id)::int FROM chatbots WHERE workspace_id = w.id) AS bot
        FROM workspaces w WHERE slug = 'acme'`;
    const ws = w!.id;
    // A conversation per sample, made beforehand: each write is a conversation's next message.
    const total = PER_ROUND * ROUNDS * 2;
    const convs = (await sql<{ id: number }[]>`
      INSERT INTO conversations (workspace_id, chatbot_id, visitor_id)
      SELECT ${ws}, ${w!.bot}, 'wc' || i FROM generate_series(1, ${total}) i
      RETURNING id::int`).map((r) => r.id);
    const times: Record<string, number[]> = {
      "on visitor": [],
      "off visitor": [],
      "on assistant": [],
      "off assistant": [],
    };
    let next = 0;
    for (let round = 0; round < ROUNDS * 2; round++) {
      const on = round % 2 === 0;
      for (const t of TRIGGERS) {
        await sql.unsafe(`ALTER TABLE messages ${on ? "ENABLE" : "DISABLE"} TRIGGER ${t}`);
      }
      for (let i = 0; i < PER_ROUND; i++) {
        const conversationId = convs[next++]!;
        const now = new Date();
        let t = performance.now();
        await appendMessage(sql, ws, { conversationId, role: "visitor", content: "Hi", now });
        times[`${on ? "on" : "off"} visitor`]!.push(performance.now() - t);
        t = performance.now();
        await appendMessage(sql, ws, {
          conversationId,
          role: "assistant",
          content: "Hello",
          tokensIn: 120,
          tokensOut: 60,
          costMicroCents: 4500,
          now,
        });
        times[`${on ? "on" : "off"} assistant`]!.push(performance.now() - t);
      }
    }
    for (const t of TRIGGERS) await sql.unsafe(`ALTER TABLE messages ENABLE TRIGGER ${t}`);
    const row = (kind: string) =>
      `| ${label} | ${kind} | ${percentile(times[`on ${kind}`]!, 0.5).toFixed(3)} / ${
        percentile(times[`on ${kind}`]!, 0.9).toFixed(3)
      } | ${percentile(times[`off ${kind}`]!, 0.5).toFixed(3)} / ${
        percentile(times[`off ${kind}`]!, 0.9).toFixed(3)
      } |`;
    return [row("visitor"), row("assistant")].join("\n");
  } finally {
    await s.stop();
  }
}

export async function run(): Promise<string> {
  const out = [
    `### A message write with and without the report's counts (${
      PER_ROUND * ROUNDS
    } each, alternating rounds)`,
    "",
    "| database | message | with the trigger p50 / p90 ms | without p50 / p90 ms |",
    "| --- | --- | --- | --- |",
  ];
  const pg = await realPostgresUrl();
  if (pg) out.push(await withDatabase(pg, () => measure("PostgreSQL")));
  out.push(await withDatabase(null, () => measure("embedded")));
  return out.join("\n");
}

if (import.meta.main) console.log(await run());
