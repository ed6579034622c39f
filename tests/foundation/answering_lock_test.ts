/**
 * The answering lock of a keyed visitor message is short and renewed while
 * its holder works (domain/conversations/answering_lock.ts): it stays held
 * past its expiry while renewed, leaks no timer once given back, and a reply
 * that takes longer than the expiry is still answered once, its concurrent
 * duplicate waiting for it. A retry whose first attempt holds on past the
 * wait gets 409 on v1 and the `still_answering` event on the stream, even
 * before the message is stored. Losing the holder's instance is proven in
 * tests/cluster/keyed_retry_after_kill_test.ts.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import type { Kv } from "../../kv/kv.ts";
import { createMemoryKv } from "../../kv/memory_kv.ts";
import { ANSWERING_TTL_MS, takeAnsweringLock } from "../../domain/conversations/answering_lock.ts";
import { STILL_ANSWERING } from "../../domain/conversations/replay_visitor_turn.ts";

const BOT = "acme-helper";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("the answering lock is renewed while held and stops with its release", async () => {
  let clock = 0;
  const memory = createMemoryKv(() => clock);
  let renewals = 0;
  const kv: Kv = {
    ...memory,
    renew(...args) {
      renewals++;
      return memory.renew(...args);
    },
  };
  const renewEveryMs = ANSWERING_TTL_MS / 3;
  const lock = takeAnsweringLock(kv, BOT, "k-renew");
  assertEquals(await lock.held, true);
  const other = takeAnsweringLock(kv, BOT, "k-renew");
  assertEquals(await other.held, false);
  clock += ANSWERING_TTL_MS - 1000;
  await sleep(renewEveryMs + 300); // one renewal, at the moved clock
  clock += 2000; // past the first expiry
  assertEquals(await other.retake(), false, "renewed, still held");
  lock.release();
  lock.release();
  assertEquals(await other.retake(), true, "given back");
  other.release();
  // Deno's sanitizers no longer see timers: count the renewals instead.
  const renewed = renewals;
  assertOk(renewed >= 1);
  await sleep(renewEveryMs + 300);
  assertEquals(renewals, renewed, "no renewal after release");
  await memory.close();
});

Deno.test("keyed messages and the renewed answering lock", serverTestOptions, async (t) => {
  const reply = "One two three four five six seven eight nine ten.";
  const fake = startFakeAi({ reply });
  const s = await startTestServer({
    seed: standardSeed({ monthlyLimit: null }),
    env: { AI_BASE_URL: fake.baseUrl, LOG_LEVEL: "silent", ...WIDGET_ENV },
  });
  const aiCalls = (question: string) =>
    fake.requests.filter((r) => r.messages.at(-1)?.content.includes(question)).length;
  try {
    await t.step("a reply outlasting the lock's expiry is answered once", async () => {
      const q = "Will this take a while?";
      const body = { visitor_id: "w-slow", message: q, client_id: "k-slow" };
      const ip = freshIp();
      fake.chunkDelayMs = 800; // about 8 s of reply, past the lock's 6 s expiry
      try {
        const first = postStream(s.url, BOT, body, ip);
        // Once the message is stored and being answered, its duplicate waits for the reply.
        while (aiCalls(q) === 0) await sleep(50);
        await sleep(500);
        const duplicate = await postStream(s.url, BOT, body, ip);
        const original = await first;
        const done = (events: { event: string; data: { message_id?: number } }[]) =>
          events.find((e) => e.event === "done")?.data.message_id;
        assertOk(done(original.events), original.text);
        assertEquals(done(duplicate.events), done(original.events), duplicate.text);
        assertEquals(aiCalls(q), 1, "provider calls");
      } finally {
        fake.chunkDelayMs = 0;
      }
    });

    await t.step(
      "a first attempt holding on past the wait: 409 on v1, still_answering on the stream",
      async () => {
        // Another request (alive: its lock does not lapse) holds both keys and stores nothing.
        await s.deps.kv.acquire(`answering:${BOT}:k-held-v1`, 120_000, "another request");
        await s.deps.kv.acquire(`answering:${BOT}:k-held-w`, 120_000, "another request");
        const [v1, stream] = await Promise.all([
          http(s.url, "POST", `/api/v1/chatbots/${BOT}/messages`, {
            token: T.acme.owner.api,
            body: { message: "Held v1", visitor_id: "v-held", client_id: "k-held-v1" },
          }),
          postStream(s.url, BOT, { visitor_id: "w-held", message: "Held", client_id: "k-held-w" }),
        ]);
        assertEquals(v1.status, 409, v1.text);
        assertEquals(v1.body.message, STILL_ANSWERING);
        assertEquals(stream.status, 200, stream.text);
        assertOk(stream.headers.get("content-type")?.startsWith("text/event-stream"));
        assertEquals(stream.events.map((e) => [e.event, e.data.code]), [
          ["error", "still_answering"],
        ]);
      },
    );
  } finally {
    await s.stop();
    await fake.close();
  }
});
