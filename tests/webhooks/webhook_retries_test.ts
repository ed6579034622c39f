/**
 * Delivery failures, against local receivers checked with `standardwebhooks`:
 * retries after a 500, a 429 (honouring Retry-After) and a timeout, with the
 * backoff observed and the same webhook-id each time; no retry after a 400;
 * private and redirecting targets refused and never contacted; an endpoint
 * failing for the whole retry window disabled, its owners e-mailed (the
 * server's clock moved forward, nothing slept).
 */
import { assertEquals, assertOk as assert } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { startSmtpSink } from "../helpers/smtp_sink.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import {
  type ReceivedWebhook,
  startConnectionCounter,
  startWebhookReceiver,
  verifyWebhook,
} from "../helpers/webhook_receiver.ts";

const KEY = "acme-helper";
const OWNER = T.acme.owner.portal;
const BASE_MS = 300;
const flaky = startWebhookReceiver();
const redirecting = startWebhookReceiver();
const forbidden = startConnectionCounter();
const smtp = startSmtpSink();
const fake = startFakeAi({ reply: "Sure." });
const s = await startTestServer({
  seed: standardSeed(),
  env: {
    ...WIDGET_ENV,
    AI_BASE_URL: fake.baseUrl,
    SMTP_URL: smtp.url,
    WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${flaky.port},127.0.0.1:${redirecting.port}`,
    WEBHOOK_POLL_MS: "50",
    WEBHOOK_RETRY_BASE_MS: String(BASE_MS),
    WEBHOOK_TIMEOUT_MS: "500",
    WEBHOOK_SWEEP_SECONDS: "1",
  },
});
const portal = (method: string, path: string, body?: unknown) =>
  http(s.url, method, `/api/portal${path}`, { token: OWNER, body });

/** A fresh endpoint for one scenario (the previous one removed), subscribed to conversation.created. */
let current: number | null = null;
async function endpointAt(
  url: string,
  events = ["conversation.created"],
): Promise<{ id: number; secret: string }> {
  if (current !== null) await portal("DELETE", `/webhooks/${current}`);
  const r = await portal("POST", "/webhooks", { url, events });
  assertEquals(r.status, 201, r.text);
  current = r.body.data.id;
  return r.body.data;
}

async function newConversation(): Promise<void> {
  const visitor = `v_rt_${crypto.randomUUID().slice(0, 8)}`;
  assertEquals((await postStream(s.url, KEY, { visitor_id: visitor, message: "Hi" })).status, 200);
}

async function deliveries(id: number) {
  return (await portal("GET", `/webhooks/${id}/deliveries`)).body.data as {
    id: number;
    status: string;
    attempts: number;
    attempt_log: { status_code: number | null; error: string | null; outcome: string }[];
  }[];
}

/**
 * The newest delivery once it has reached `status`: the receiver has its answer a moment
 * before the server records the attempt (on the embedded database, delivery statements wait
 * for a moment with no request in hand), so the log is read until it says so, for 5 s at most.
 */
async function settled(id: number, status: string) {
  let [d] = await deliveries(id);
  for (let i = 0; i < 100 && d?.status !== status; i++) {
    await new Promise((r) => setTimeout(r, 50));
    [d] = await deliveries(id);
  }
  return d;
}

const gaps = (hits: ReceivedWebhook[]) => hits.slice(1).map((h, i) => h.at - hits[i]!.at);

Deno.test("webhook delivery failures", serverTestOptions, async (t) => {
  await t.step("a 500 is retried with growing, jittered delays under one webhook-id", async () => {
    const ep = await endpointAt(`${flaky.url}/500`);
    flaky.received.length = 0;
    flaky.respond = (_hit, n) => new Response("boom", { status: n <= 2 ? 500 : 200 });
    await newConversation();
    const hits = await flaky.waitFor(3);
    for (const h of hits) verifyWebhook(ep.secret, h);
    assertEquals(new Set(hits.map((h) => h.id)).size, 1);
    const [first, second] = gaps(hits) as [number, number];
    assert(first >= BASE_MS * 0.8 - 20, `first retry after ${first} ms`);
    assert(second >= BASE_MS * 3 * 0.8 - 20, `second retry after ${second} ms`);
    assert(second > first, `backoff grows: ${first} then ${second}`);
    const d = await settled(ep.id, "succeeded");
    assertEquals(d!.status, "succeeded");
    assertEquals(d!.attempt_log.map((a) => [a.status_code, a.outcome]), [
      [500, "retry"],
      [500, "retry"],
      [200, "succeeded"],
    ]);
  });

  await t.step("a 429 waits as long as Retry-After says", async () => {
    const ep = await endpointAt(`${flaky.url}/429`);
    flaky.received.length = 0;
    flaky.respond = (_hit, n) =>
      n === 1
        ? new Response("slow down", { status: 429, headers: { "retry-after": "2" } })
        : new Response(null, { status: 204 });
    await newConversation();
    const hits = await flaky.waitFor(2);
    for (const h of hits) verifyWebhook(ep.secret, h);
    assert(gaps(hits)[0]! >= 1950, `retried after ${gaps(hits)[0]} ms, asked for 2 s`);
  });

  await t.step("a receiver that does not answer in time is retried", async () => {
    const ep = await endpointAt(`${flaky.url}/slow`);
    flaky.received.length = 0;
    flaky.respond = async (_hit, n) => {
      if (n === 1) await new Promise((r) => setTimeout(r, 1500));
      return new Response(null, { status: 204 });
    };
    await newConversation();
    const hits = await flaky.waitFor(2);
    assertEquals(hits[0]!.id, hits[1]!.id);
    await new Promise((r) => setTimeout(r, 1200)); // the slow answer is long abandoned
    const d = await settled(ep.id, "succeeded");
    assertEquals(d!.status, "succeeded");
    assertEquals(d!.attempt_log[0]!.status_code, null);
    assert(
      d!.attempt_log[0]!.error!.includes("No answer within 500 ms"),
      d!.attempt_log[0]!.error!,
    );
  });

  await t.step("a 400 is not retried", async () => {
    const ep = await endpointAt(`${flaky.url}/400`);
    flaky.received.length = 0;
    flaky.respond = () => new Response("bad", { status: 400 });
    await newConversation();
    await flaky.waitFor(1);
    await new Promise((r) => setTimeout(r, BASE_MS * 5));
    assertEquals(flaky.received.length, 1);
    const d = await settled(ep.id, "failed");
    assertEquals([d!.status, d!.attempts], ["failed", 1]);
    assertEquals(d!.attempt_log[0]!.status_code, 400);
  });

  await t.step(
    "a message committed without its event (process died) is recovered once",
    async () => {
      const ep = await endpointAt(`${flaky.url}/swept`, ["message.created"]);
      flaky.received.length = 0;
      flaky.respond = () => new Response(null, { status: 204 });
      // Stored behind the API's back: no domain event is ever published for it.
      const [row] = await s.deps.sql<{ id: number; public_id: string }[]>`
      INSERT INTO messages (workspace_id, conversation_id, role, content)
      SELECT workspace_id, id, 'visitor', 'Written just before a crash' FROM conversations
       ORDER BY id DESC LIMIT 1
      RETURNING id, (SELECT public_id FROM conversations ORDER BY id DESC LIMIT 1)`;
      const [hit] = await flaky.waitFor(1, 15_000);
      verifyWebhook(ep.secret, hit!);
      const data = hit!.json.data as {
        conversation: { id: string };
        message: Record<string, unknown>;
      };
      assertEquals(data.message.id, Number(row!.id));
      assertEquals(data.message.content, "Written just before a crash");
      assertEquals(data.conversation.id, row!.public_id);
      await new Promise((r) => setTimeout(r, 2500)); // two more sweeps find nothing new
      assertEquals(flaky.received.length, 1);
    },
  );

  await t.step("private and local targets are refused when stored", async () => {
    for (
      const url of [
        `http://127.0.0.1:${forbidden.port}/`,
        `https://127.0.0.1:${forbidden.port}/`,
        "https://10.1.2.3/hook",
        "https://169.254.169.254/latest",
        `https://localhost:${forbidden.port}/`,
      ]
    ) {
      const r = await portal("POST", "/webhooks", { url, events: ["conversation.created"] });
      assertEquals([r.status, Object.keys(r.body.errors ?? {})], [422, ["url"]], url);
    }
  });

  await t.step("a stored private target is refused at delivery, never contacted", async () => {
    const ep = await endpointAt(`${flaky.url}/soon-private`);
    // As if DNS had changed to a private address since: stored behind the API's back.
    await s.deps.sql`UPDATE webhook_endpoints SET url = ${`https://127.0.0.1:${forbidden.port}/`}
                      WHERE id = ${ep.id}`;
    await new Promise((r) => setTimeout(r, 100));
    await newConversation();
    let d = (await deliveries(ep.id))[0];
    for (let i = 0; i < 100 && d?.status !== "failed"; i++) {
      await new Promise((r) => setTimeout(r, 50));
      d = (await deliveries(ep.id))[0];
    }
    assertEquals(d!.status, "failed");
    assert(d!.attempt_log[0]!.error!.startsWith("Refused"), d!.attempt_log[0]!.error!);
    assertEquals(forbidden.count(), 0);
  });

  await t.step("a redirect is not followed: the target is never contacted", async () => {
    const ep = await endpointAt(`${redirecting.url}/moved`);
    redirecting.respond = () =>
      new Response(null, {
        status: 307,
        headers: { location: `http://127.0.0.1:${forbidden.port}/` },
      });
    await newConversation();
    await redirecting.waitFor(1);
    await new Promise((r) => setTimeout(r, BASE_MS * 3));
    assertEquals(redirecting.received.length, 1);
    assertEquals(forbidden.count(), 0);
    const d = await settled(ep.id, "failed");
    assertEquals([d!.status, d!.attempt_log[0]!.status_code], ["failed", 307]);
  });

  await t.step(
    "failing for the whole window disables the endpoint and mails its owners",
    async () => {
      const ep = await endpointAt(`${flaky.url}/down`);
      flaky.received.length = 0;
      flaky.respond = () => new Response("down", { status: 503 });
      await newConversation();
      await flaky.waitFor(1);
      // The server reads its clock for the attempt's outcome just after the answer: move it
      // only once that attempt is logged, or the first attempt itself counts as a day late.
      for (let i = 0; i < 100 && !(await deliveries(ep.id))[0]?.attempt_log.length; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const realClock = s.deps.clock;
      const later = new Date(Date.now() + 25 * 3_600_000);
      s.deps.clock = () => later;
      try {
        await flaky.waitFor(2);
        const mails = await smtp.waitFor(1);
        assert(mails[0]!.to.includes("owner@acme.test"), mails[0]!.to.join());
        assert(mails[0]!.text.includes(`${flaky.url}/down`));
        const shown = await portal("GET", `/webhooks/${ep.id}`);
        assertEquals(shown.body.data.enabled, false);
        assert(shown.body.data.disabled_reason.includes("503"));
        const d = await settled(ep.id, "failed");
        assertEquals(d!.status, "failed");
        // Re-enabling gives it a fresh start.
        const on = await portal("PATCH", `/webhooks/${ep.id}`, { enabled: true });
        assertEquals([on.body.data.enabled, on.body.data.disabled_reason], [true, null]);
      } finally {
        s.deps.clock = realClock;
      }
    },
  );
});

Deno.test("stop", serverTestOptions, async () => {
  await s.stop();
  await Promise.all([flaky.stop(), redirecting.stop(), smtp.stop(), fake.close()]);
  forbidden.stop();
});
