/**
 * Visitor messages with an idempotency key (`client_id` or `Idempotency-Key`)
 * are stored once and answered once, however often they are retried: on v1
 * and on the widget stream, after a plain retry, under concurrent duplicates,
 * and after a database partition whose 503 hid a request that committed once
 * the partition healed (docs/errors.md, retrying safely). The server reaches
 * its database through a fault proxy (tests/helpers/fault_proxy.ts).
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { startFaultProxy } from "../helpers/fault_proxy.ts";
import { openDatabase } from "../helpers/outage_database.ts";
import { freshIp, postStream, type StreamResult, WIDGET_ENV } from "../widget/widget_client.ts";

const BOT = "acme-helper";
const REPLY = "We are here.";

Deno.test("retry-safe visitor messages", serverTestOptions, async (t) => {
  const database = await openDatabase();
  const proxy = startFaultProxy(database.host);
  const fake = startFakeAi({ reply: REPLY });
  const s = await startTestServer({
    seed: standardSeed({ monthlyLimit: null }),
    databaseUrl: proxy.urlFor(database.url),
    env: { AI_BASE_URL: fake.baseUrl, LOG_LEVEL: "silent", ...WIDGET_ENV, ...database.env },
  });
  const v1 = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    http(s.url, "POST", `/api/v1/chatbots/${BOT}/messages`, {
      token: T.acme.owner.api,
      body,
      headers,
    });
  const ip = freshIp();
  const stream = (body: Record<string, unknown>) => postStream(s.url, BOT, body, ip);
  /** Provider calls that asked `question`. */
  const aiCalls = (question: string) =>
    fake.requests.filter((r) => r.messages.at(-1)?.content.includes(question)).length;
  const stored = async (content: string) =>
    (await s.deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM messages WHERE role = 'visitor' AND content = ${content}`)[0]!
      .n;
  const replies = async (content: string) =>
    (await s.deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM messages a JOIN messages v
        ON v.conversation_id = a.conversation_id AND a.client_id = 'reply:' || v.client_id
       WHERE v.content = ${content}`)[0]!.n;
  const streamed = (r: StreamResult) => ({
    meta: r.events.find((e) => e.event === "meta")?.data,
    text: r.events.filter((e) => e.event === "delta").map((e) => e.data.delta).join(""),
    done: r.events.find((e) => e.event === "done")?.data,
  });

  try {
    await t.step(
      "v1: a retry returns the stored message and reply, no second AI call",
      async () => {
        const q = "Do you ship to Iceland?";
        const first = await v1({ message: q, visitor_id: "v-retry", client_id: "k-v1-1" });
        assertEquals(first.status, 200, first.text);
        const again = await v1({ message: q, visitor_id: "v-retry", client_id: "k-v1-1" });
        assertEquals(again.status, 200, again.text);
        assertEquals(again.body, first.body);
        // The standard header is the same key.
        const byHeader = await v1({ message: q, visitor_id: "v-retry" }, {
          "idempotency-key": "k-v1-1",
        });
        assertEquals(byHeader.body, first.body);
        assertEquals(await stored(q), 1);
        assertEquals(aiCalls(q), 1);
        // The same key for another message is refused, naming the field.
        const reused = await v1({
          message: "Something else",
          visitor_id: "v-retry",
          client_id: "k-v1-1",
        });
        assertEquals(reused.status, 422, reused.text);
        assertOk(reused.body.errors.client_id);
        const clash = await v1({ message: q, visitor_id: "v-retry", client_id: "a" }, {
          "idempotency-key": "b",
        });
        assertEquals(clash.status, 422, clash.text);
        assertOk(clash.body.errors.client_id);
      },
    );

    await t.step("v1: a retry after a 502 answers the stored message once", async () => {
      const q = "Is the provider back?";
      fake.mode = "server_error";
      const failed = await v1({ message: q, visitor_id: "v-502", client_id: "k-502" });
      assertEquals(failed.status, 502, failed.text);
      fake.mode = "ok";
      const calls = aiCalls(q);
      const retry = await v1({ message: q, visitor_id: "v-502", client_id: "k-502" });
      assertEquals(retry.status, 200, retry.text);
      assertEquals(retry.body.conversation_id, failed.body.conversation_id);
      assertEquals(retry.body.reply.content, REPLY);
      const again = await v1({ message: q, visitor_id: "v-502", client_id: "k-502" });
      assertEquals(again.body, retry.body);
      assertEquals(await stored(q), 1);
      assertEquals(await replies(q), 1);
      assertEquals(aiCalls(q), calls + 1);
    });

    await t.step("widget: a retry streams the stored reply, no second message", async () => {
      const q = "Where is my parcel?";
      const first = streamed(
        await stream({ visitor_id: "w-retry", message: q, client_id: "k-w-1" }),
      );
      assertEquals(first.text, REPLY);
      const again = streamed(
        await stream({ visitor_id: "w-retry", message: q, client_id: "k-w-1" }),
      );
      assertEquals(again.meta, first.meta);
      assertEquals(again.text, REPLY);
      assertEquals(again.done.message_id, first.done.message_id);
      assertEquals(await stored(q), 1);
      assertEquals(aiCalls(q), 1);
      // Another visitor cannot replay it.
      const other = await stream({ visitor_id: "w-other", message: q, client_id: "k-w-1" });
      assertEquals(other.status, 422, other.text);
    });

    await t.step("concurrent duplicates store one message and call the AI once", async () => {
      const q = "Can I pay by invoice?";
      const answers = await Promise.all(
        [0, 1, 2, 3, 4, 5].map(() =>
          v1({ message: q, visitor_id: "v-burst", client_id: "k-burst" })
        ),
      );
      for (const a of answers) assertEquals(a.status, 200, a.text);
      assertEquals(new Set(answers.map((a) => a.body.reply?.id)).size, 1);
      assertEquals(await stored(q), 1);
      assertEquals(await replies(q), 1);
      assertEquals(aiCalls(q), 1);
    });

    await t.step(
      "a 503 during a partition that commits later is not doubled by a retry",
      async () => {
        const qv1 = "Partition question v1";
        const qw = "Partition question widget";
        proxy.cut("stall");
        const [cutV1, cutW] = await Promise.all([
          v1({ message: qv1, visitor_id: "v-part", client_id: "k-part-v1" }),
          stream({ visitor_id: "w-part", message: qw, client_id: "k-part-w" }),
        ]);
        assertEquals(cutV1.status, 503, cutV1.text);
        assertEquals(cutW.status, 503, cutW.text);
        proxy.heal();
        // The stalled requests go on once the database is back: retry as a client would.
        const retryV1 = await v1({ message: qv1, visitor_id: "v-part", client_id: "k-part-v1" });
        assertEquals(retryV1.status, 200, retryV1.text);
        assertEquals(retryV1.body.reply.content, REPLY);
        const retryW = streamed(
          await stream({ visitor_id: "w-part", message: qw, client_id: "k-part-w" }),
        );
        assertEquals(retryW.text, REPLY);
        // Let anything still running in the background finish before counting.
        await new Promise((r) => setTimeout(r, 500));
        for (const q of [qv1, qw]) {
          assertEquals(await stored(q), 1, `${q} stored twice`);
          assertEquals(await replies(q), 1, `${q} answered twice`);
          assertOk(aiCalls(q) === 1, `${q}: ${aiCalls(q)} provider calls`);
        }
      },
    );
  } finally {
    proxy.heal();
    await s.stop();
    await proxy.close();
    await database.close();
    await fake.close();
  }
});
