/**
 * Retention and the contact list at size (issue 38): a workspace with
 * BENCH_RETENTION_CONVERSATIONS resolved conversations of ten messages each
 * (1,000,000 messages by default), every visitor a contact, all older than
 * the 30-day period. Measures the contact list (first page, a page deep in
 * the keyset, a search) at that many contacts, then one retention run with
 * RETENTION_BATCH_SIZE (200): the longest and median batch (each one
 * transaction, so the longest time any row lock is held), the whole run, and
 * an inbox-style write to another conversation timed while the run goes.
 * Embedded, then PostgreSQL when reachable.
 */
import { startTestServer } from "../tests/helpers/test_server.ts";
import { standardSeed } from "../tests/helpers/fixtures.ts";
import { runRetention } from "../domain/retention/run_retention.ts";
import { pageContacts } from "../db/contacts.ts";
import { onEachDatabase, percentile, withDatabase } from "./support.ts";

const CONVERSATIONS = Number(Deno.env.get("BENCH_RETENTION_CONVERSATIONS") ?? "100000");
const PER_CONVERSATION = 10;
const BATCH = Number(Deno.env.get("RETENTION_BATCH_SIZE") ?? "200");
/** What the worker uses on the embedded database (retention_worker.ts), unless set. */
const EMBEDDED_BATCH = Number(Deno.env.get("RETENTION_BATCH_SIZE") ?? "25");

const p = (values: number[], q: number) => values.length ? percentile(values, q).toFixed(1) : "n/a";

async function time<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const out = await fn();
  return [out, performance.now() - t0];
}

async function measure(): Promise<string> {
  const s = await startTestServer({
    seed: standardSeed(),
    env: { RETENTION_INTERVAL_SECONDS: "86400" }, // the bench runs retention itself
  });
  try {
    const sql = s.deps.sql;
    const [ws] = await sql<{ id: number; bot: number }[]>`
      SELECT w.id, b.id AS bot FROM workspaces w JOIN chatbots b ON b.workspace_id = w.id
       WHERE w.slug = 'acme' ORDER BY b.id LIMIT 1`;
    const old = new Date(Date.now() - 40 * 86_400_000);
    const [, fill] = await time(async () => {
      for (let from = 0; from < CONVERSATIONS; from += 10_000) {
        const to = Math.min(CONVERSATIONS, from + 10_000) - 1;
        await sql`
          WITH c AS (
            INSERT INTO conversations (workspace_id, chatbot_id, visitor_id, status, visitor_name,
                                       visitor_email, resolved_at, last_message_at, created_at)
            SELECT ${ws!.id}, ${ws!.bot}, 'v_bench_' || g, 'closed', 'Person ' || g,
                   'person' || g || '@example.org', ${old}, ${old}, ${old}
              FROM generate_series(${from}::int, ${to}::int) g
            RETURNING id)
          INSERT INTO messages (workspace_id, conversation_id, role, content, created_at)
          SELECT ${ws!.id}, c.id, CASE WHEN n % 2 = 0 THEN 'visitor' ELSE 'assistant' END,
                 'Message ' || n || ' about order ' || c.id, ${old}
            FROM c CROSS JOIN generate_series(1, ${PER_CONVERSATION}) n`;
      }
    });
    await sql`UPDATE workspaces SET retention_days = 30 WHERE id = ${ws!.id}`;
    await sql`ANALYZE`;
    const [[count]] = await Promise.all([
      sql<{ contacts: number; messages: number }[]>`
        SELECT (SELECT count(*) FROM contacts)::int AS contacts,
               (SELECT count(*) FROM messages)::int AS messages`,
    ]);

    // The contact list at this size: first page, a deep page, a search.
    const list = async (opts: { q?: string; before?: number }) => {
      const times: number[] = [];
      for (let i = 0; i < 20; i++) {
        times.push((await time(() => pageContacts(sql, ws!.id, { ...opts, limit: 26 })))[1]);
      }
      return percentile(times, 0.5).toFixed(1);
    };
    const [mid] = await sql<{ id: number }[]>`
      SELECT id FROM contacts ORDER BY id OFFSET ${Math.floor(CONVERSATIONS / 2)} LIMIT 1`;
    const first = await list({});
    const deep = await list({ before: Number(mid!.id) });
    const search = await list({ q: "person4242" });

    // A live conversation an agent keeps writing to while retention runs.
    const [live] = await sql<{ id: number }[]>`
      INSERT INTO conversations (workspace_id, chatbot_id, visitor_id)
      VALUES (${ws!.id}, ${ws!.bot}, 'v_live') RETURNING id`;
    const writes: number[] = [];
    let running = true;
    const writer = (async () => {
      while (running) {
        const [, ms] = await time(() =>
          sql`INSERT INTO messages (workspace_id, conversation_id, role, content)
              VALUES (${ws!.id}, ${live!.id}, 'agent', 'still here')`
        );
        writes.push(ms);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const batches: number[] = [];
    let last = performance.now();
    const [done, total] = await time(() =>
      runRetention(
        { ...s.deps, clock: () => new Date() },
        s.env.DATABASE_URL ? BATCH : EMBEDDED_BATCH,
        () => {
          const now = performance.now();
          batches.push(now - last);
          last = now;
          return Promise.resolve(true);
        },
      )
    );
    running = false;
    await writer;
    const counts = done.get(Number(ws!.id));
    return [
      `${s.env.DATABASE_URL ? "PostgreSQL" : "embedded"}: ${count!.messages} messages, ` +
      `${count!.contacts} contacts (filled in ${(fill / 1000).toFixed(0)} s)`,
      `  contact list page (25): first ${first} ms, deep (keyset) ${deep} ms, search ${search} ms`,
      `  retention run, batch ${
        s.env.DATABASE_URL ? BATCH : EMBEDDED_BATCH
      }: ${counts?.conversations} conversations, ` +
      `${counts?.messages} messages in ${(total / 1000).toFixed(1)} s, ${counts?.batches} batches`,
      `  per batch (one transaction): median ${p(batches, 0.5)} ms, ` +
      `p99 ${p(batches, 0.99)} ms, max ${p(batches, 1)} ms`,
      `  an agent's message meanwhile: median ${p(writes, 0.5)} ms, ` +
      `max ${p(writes, 1)} ms (${writes.length} writes)`,
    ].join("\n");
  } finally {
    await s.stop();
  }
}

if (import.meta.main) {
  // BENCH_RETENTION_EMBEDDED_ONLY=1: the embedded database alone (e.g. another batch size).
  const results = Deno.env.get("BENCH_RETENTION_EMBEDDED_ONLY")
    ? [await withDatabase(null, measure)]
    : await onEachDatabase(measure);
  for (const line of results) console.log(line);
}
