/**
 * A keyed request in flight on an instance killed with SIGKILL is answered,
 * once, when it is retried elsewhere (nginx passes it on, or the client
 * retries as docs/errors.md says): the dead instance's answering lock lapses
 * within seconds instead of holding every retry off for minutes. For a widget
 * stream and for a v1 message: the retry is answered within 10 s, the
 * conversation keeps one visitor message and one reply, and the provider is
 * called once after the kill.
 *
 * Needs DATABASE_URL and REDIS_URL (skipped on the embedded backend).
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { http } from "../helpers/http.ts";
import { T } from "../helpers/fixtures.ts";
import { parseSse, type SseEvent } from "../widget/widget_client.ts";
import { freshLoopbackAddress } from "../helpers/client_at.ts";
import { readStream, startTestCluster } from "./cluster_helpers.ts";
import type { Instance } from "../../cli/cluster/start_cluster.ts";

const shared = Boolean(Deno.env.get("DATABASE_URL") && Deno.env.get("REDIS_URL"));
const BOT = "acme-helper";
const REPLY = "We ship to every country in Europe within five days.";
const RETRY_WITHIN_MS = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** POST the stream and read it until its first `delta`; the rest is left to the kill. */
async function streamUntilFirstDelta(
  url: string,
  body: Record<string, unknown>,
  from: string,
): Promise<SseEvent[]> {
  const client = Deno.createHttpClient({ localAddress: from });
  const res = await fetch(`${url}/widget/${BOT}/stream`, {
    method: "POST",
    client,
    headers: { accept: "text/event-stream", "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  assertEquals(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before a delta: ${text}`);
    text += decoder.decode(value, { stream: true });
    const end = text.lastIndexOf("\n\n");
    const events = end === -1 ? [] : parseSse(text.slice(0, end + 2));
    if (events.some((e) => e.event === "delta")) {
      // Reading on would see the cut; the body goes with the connection.
      reader.cancel().catch(() => {});
      client.close();
      return events;
    }
  }
}

Deno.test({
  name: "a keyed request in flight on a killed instance is answered once when retried",
  ignore: !shared,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const { cluster, ai, close } = await startTestCluster({ instances: 2 });
    const lb = cluster.url;
    /** Provider calls that asked `question` so far. */
    const aiCalls = (question: string) =>
      ai.requests.filter((r) => r.messages.at(-1)?.content.includes(question)).length;
    /** The conversation's messages with `question` and the replies after it. */
    async function storedTurn(conversationId: string, question: string) {
      const r = await http(lb, "GET", `/api/v1/conversations/${conversationId}`, {
        token: T.acme.owner.api,
      });
      assertEquals(r.status, 200, r.text);
      const messages = r.body.data.messages as { id: number; role: string; content: string }[];
      return {
        questions: messages.filter((m) => m.content === question).length,
        replies: messages.filter((m) => m.role !== "visitor"),
      };
    }

    /** Runs `test` on `victim`, which it kills; the victim is back afterwards, passed or not. */
    async function withVictim(victim: Instance, test: (victim: Instance) => Promise<void>) {
      try {
        await test(victim);
      } finally {
        ai.chunkDelayMs = 0;
        ai.latencyMs = 0;
        if (!victim.running) await victim.start();
      }
    }

    try {
      await t.step(
        "a widget stream: the retry streams the reply within 10 s",
        () =>
          withVictim(cluster.instances[0]!, async (victim) => {
            const q = "Do you ship to Portugal?";
            const body = { visitor_id: "v_kill_stream", message: q, client_id: "k-kill-stream" };
            const ip = freshLoopbackAddress();
            ai.chunkDelayMs = 400; // about 4 s of reply: in flight when the kill comes
            const first = await streamUntilFirstDelta(victim.url, body, ip);
            const meta = first.find((e) => e.event === "meta")!.data;
            await victim.kill("SIGKILL");
            const callsBefore = aiCalls(q);
            ai.chunkDelayMs = 10;

            const started = performance.now();
            const retry = await readStream(lb, BOT, body, ip);
            const tookMs = performance.now() - started;
            const names = retry.events.map((e) => e.event);
            assertEquals(retry.status, 200);
            assertEquals(names.at(-1), "done", JSON.stringify(retry.events));
            assertOk(tookMs < RETRY_WITHIN_MS, `the retry took ${Math.round(tookMs)} ms`);
            assertEquals(retry.events[0]!.data, meta, "the stored message's meta");
            const text = retry.events.filter((e) => e.event === "delta").map((e) => e.data.delta);
            assertEquals(text.join(""), REPLY);
            assertEquals(aiCalls(q) - callsBefore, 1, "provider calls after the kill");

            const turn = await storedTurn(meta.conversation_id, q);
            assertEquals(turn.questions, 1);
            assertEquals(turn.replies.map((m) => [m.id, m.content]), [
              [retry.events.at(-1)!.data.message_id, REPLY],
            ]);
            // Once answered, a further retry replays the stored reply.
            const again = await readStream(lb, BOT, body, ip);
            assertEquals(
              again.events.at(-1)!.data.message_id,
              retry.events.at(-1)!.data.message_id,
            );
            assertEquals(aiCalls(q) - callsBefore, 1);
          }),
      );

      await t.step(
        "a v1 message: the retry answers 200 within 10 s",
        () =>
          withVictim(cluster.instances[1]!, async (victim) => {
            const q = "Do you ship to Malta?";
            const body = { message: q, visitor_id: "v_kill_v1", client_id: "k-kill-v1" };
            const send = (url: string) =>
              http(url, "POST", `/api/v1/chatbots/${BOT}/messages`, {
                token: T.acme.owner.api,
                body,
              });
            ai.latencyMs = 5_000; // the provider is still thinking when the kill comes
            const lost = send(victim.url).catch((err) => err as Error);
            while (aiCalls(q) === 0) await sleep(50);
            await sleep(300); // the visitor message is committed by now
            await victim.kill("SIGKILL");
            ai.latencyMs = 0;
            assertOk((await lost) instanceof Error, "the killed instance answered nothing");
            const callsBefore = aiCalls(q);

            const started = performance.now();
            const retry = await send(lb);
            const tookMs = performance.now() - started;
            assertEquals(retry.status, 200, retry.text);
            assertOk(tookMs < RETRY_WITHIN_MS, `the retry took ${Math.round(tookMs)} ms`);
            assertEquals(retry.body.reply.content, REPLY);
            assertEquals(aiCalls(q) - callsBefore, 1, "provider calls after the kill");

            const turn = await storedTurn(retry.body.conversation_id, q);
            assertEquals(turn.questions, 1);
            assertEquals(turn.replies.map((m) => m.id), [retry.body.reply.id]);
            const again = await send(lb);
            assertEquals(again.body, retry.body);
            assertEquals(aiCalls(q) - callsBefore, 1);
          }),
      );
    } finally {
      await close();
    }
  },
});
