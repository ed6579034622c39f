// deno-lint-ignore-file no-explicit-any
/**
 * GET /metrics (docs/operations.md): refused without its bearer token, absent
 * without METRICS_TOKEN, and moved by real traffic with bounded labels: a
 * widget stream, an agent's reply heard over a socket, a website crawl and a
 * failed provider call.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { page, startLocalSite } from "../helpers/local_site.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { nextEvent, pusherClient, subscribe } from "../realtime/pusher_helpers.ts";
import { pollUntil } from "../portal/poll.ts";
import { type Scrape, scrape } from "./prometheus.ts";
import { banner } from "../../main.ts";
import { startWebhookReceiver } from "../helpers/webhook_receiver.ts";

const TOKEN = "metrics-test-token-0123456789";
const KEY = "acme-helper";
const STREAM = { surface: "widget", route: "/widget/{key}/stream", method: "POST" };
const CHAT = { provider: "provider_1", model: "gpt-4o-mini", operation: "chat" };

Deno.test("metrics: /metrics is absent without METRICS_TOKEN", serverTestOptions, async () => {
  const s = await startTestServer({ seed: standardSeed() });
  try {
    const r = await http(s.url, "GET", "/metrics", { token: TOKEN });
    assertEquals(r.status, 404);
  } finally {
    await s.stop();
  }
});

Deno.test(
  "metrics: traffic moves the series, with bounded labels",
  serverTestOptions,
  async (t) => {
    const fake = startFakeAi({ reply: "Our support desk is open Monday to Friday." });
    const site = startLocalSite({
      "/": page("Home", ["Welcome to the Widgetco help centre about walrus care."], ["/about"]),
      "/about": page("About", ["Widgetco builds zebra-striped widgets since 1999."]),
    });
    const receiver = startWebhookReceiver();
    const s = await startTestServer({
      seed: standardSeed(),
      env: {
        ...WIDGET_ENV,
        AI_BASE_URL: fake.baseUrl,
        METRICS_TOKEN: TOKEN,
        WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${receiver.port}`,
        WEBHOOK_POLL_MS: "50",
      },
    });
    const metrics = () => scrape(s.url, TOKEN);
    const moved = (before: Scrape, after: Scrape, name: string, labels?: Record<string, string>) =>
      after.sum(name, labels) - before.sum(name, labels);
    try {
      await t.step("refused without the token, or with another one", async () => {
        const none = await http(s.url, "GET", "/metrics");
        assertEquals(none.status, 401);
        assertEquals(none.headers.get("www-authenticate"), 'Bearer realm="metrics"');
        assertOk(!none.text.includes("parley_"), "nothing is revealed");
        const wrong = await http(s.url, "GET", "/metrics", { token: TOKEN.slice(0, -1) + "x" });
        assertEquals(wrong.status, 401);
        const basic = await http(s.url, "GET", "/metrics", {
          headers: { authorization: `Basic ${btoa(`x:${TOKEN}`)}` },
        });
        assertEquals(basic.status, 401);
        const ok = await http(s.url, "GET", "/metrics", { token: TOKEN });
        assertEquals(ok.status, 200);
        assertMatch(ok.headers.get("content-type")!, /^text\/plain; version=0\.0\.4/);
        assertMatch(ok.text, /^# HELP parley_http_requests_total /m);
        assertMatch(ok.text, /^parley_process_resident_memory_bytes \d+/m);
        assertMatch(ok.text, /^parley_db_pool_size \d+/m);
        // DATABASE_POOL_SIZE's default, or the embedded database's one connection.
        const pool = (await metrics()).sum("parley_db_pool_size");
        assertEquals(pool, s.deps.db.embedded ? 1 : 10);
      });

      let conversationId = "";
      await t.step("a widget stream: request, stream, provider, retrieval, events", async () => {
        const before = await metrics();
        const visitor = `v_metrics_${crypto.randomUUID().slice(0, 8)}`;
        const r = await postStream(s.url, KEY, {
          visitor_id: visitor,
          message: "When are you open?",
        });
        assertEquals(r.events.at(-1)!.event, "done");
        conversationId = r.events[0]!.data.conversation_id;
        const after = await metrics();
        assertEquals(
          moved(before, after, "parley_http_requests_total", { ...STREAM, status: "200" }),
          1,
        );
        assertEquals(
          moved(before, after, "parley_http_request_duration_seconds_count", {
            surface: "widget",
            route: STREAM.route,
          }),
          1,
        );
        assertEquals(moved(before, after, "parley_widget_streams_total", { outcome: "ai" }), 1);
        assertEquals(after.sum("parley_widget_streams_in_flight"), 0);
        assertEquals(moved(before, after, "parley_widget_stream_first_delta_seconds_count"), 1);
        assertOk(moved(before, after, "parley_widget_stream_first_delta_seconds_sum") > 0);
        assertEquals(
          moved(before, after, "parley_widget_stream_reply_seconds_count", { outcome: "ai" }),
          1,
        );
        assertEquals(
          moved(before, after, "parley_ai_provider_calls_total", { ...CHAT, outcome: "ok" }),
          1,
        );
        assertEquals(
          moved(before, after, "parley_ai_provider_call_duration_seconds_count", {
            ...CHAT,
            outcome: "ok",
          }),
          1,
        );
        assertOk(
          moved(before, after, "parley_ai_provider_tokens_total", {
            provider: "provider_1",
            model: "gpt-4o-mini",
            direction: "out",
          }) > 0,
        );
        assertOk(moved(before, after, "parley_ai_provider_tokens_total", { direction: "in" }) > 0);
        assertEquals(moved(before, after, "parley_retrieval_duration_seconds_count"), 1);
        assertEquals(
          moved(before, after, "parley_events_published_total", { type: "conversation.created" }),
          1,
        );
        assertOk(
          moved(before, after, "parley_events_published_total", { type: "message.created" }) >= 2,
        );
        // Bounded labels: no ids, no raw paths.
        assertOk(!after.text.includes(conversationId));
        assertOk(!after.text.includes(visitor));
      });

      await t.step("an agent's reply heard over a socket", async () => {
        const token = T.acme.agent.agent;
        const agent = pusherClient(s, { token });
        try {
          const sub = await subscribe(agent, `private-conversation.${conversationId}`);
          assertOk(sub.ok);
          const before = await metrics();
          assertOk(before.sum("parley_realtime_sockets_open") >= 1);
          assertOk(
            before.sum("parley_realtime_subscriptions", { channel: "conversation" }) >= 1,
          );
          const heard = nextEvent<any>(sub.channel, "message.created");
          const r = await http(s.url, "POST", `/api/agent/conversations/${conversationId}/reply`, {
            token,
            body: { body: "Hi, Amy here." },
          });
          assertEquals(r.status, 200);
          assertEquals((await heard).message.content, "Hi, Amy here.");
          const after = await metrics();
          assertEquals(
            moved(before, after, "parley_http_requests_total", {
              surface: "agent",
              route: "/api/agent/conversations/{conversation}/reply",
              method: "POST",
              status: "200",
            }),
            1,
          );
          assertOk(
            moved(before, after, "parley_realtime_events_delivered_total", {
              channel: "conversation",
            }) >= 1,
          );
          assertOk(
            moved(before, after, "parley_events_published_total", { type: "message.created" }) >= 1,
          );
        } finally {
          agent.disconnect();
        }
        const closed = await pollUntil(
          async () => (await metrics()).sum("parley_realtime_sockets_open") === 0 || null,
          "the socket to close",
          5000,
        );
        assertOk(closed);
      });

      await t.step("a failed provider call: its kind, and the stream's error", async () => {
        const before = await metrics();
        fake.mode = "unauthorized";
        try {
          const r = await postStream(s.url, KEY, {
            visitor_id: `v_metrics_fail_${crypto.randomUUID().slice(0, 8)}`,
            message: "Are you there?",
          });
          assertEquals(r.events.at(-1)!.event, "error");
          assertEquals(r.events.at(-1)!.data.code, "provider_key_refused");
        } finally {
          fake.mode = "ok";
        }
        const after = await metrics();
        assertEquals(
          moved(before, after, "parley_ai_provider_calls_total", {
            ...CHAT,
            outcome: "key_refused",
          }),
          1,
        );
        assertEquals(
          moved(before, after, "parley_ai_provider_calls_total", { ...CHAT, outcome: "ok" }),
          0,
        );
        assertEquals(
          moved(before, after, "parley_widget_streams_total", { outcome: "provider_key_refused" }),
          1,
        );
        assertEquals(
          moved(before, after, "parley_widget_stream_first_delta_seconds_count"),
          0,
          "no delta was sent",
        );
      });

      await t.step("a crawl: the indexing job, its embeddings, the queue", async () => {
        const before = await metrics();
        const owner = T.acme.owner.portal;
        const base = `/api/portal/chatbots/${KEY}/knowledge`;
        const r = await http(s.url, "POST", base, {
          token: owner,
          body: { type: "url", source_url: `${site.url}/` },
        });
        assertEquals(r.status, 201);
        const id = r.body.data.id;
        await pollUntil(
          async () => {
            const list = await http(s.url, "GET", base, { token: owner });
            const found = (list.body.data as { id: number; status: string }[]).find((x) =>
              x.id === id
            );
            return found?.status === "ready" || null;
          },
          "the crawl to finish",
          30_000,
        );
        const after = await pollUntil(
          async () => {
            const m = await metrics();
            return moved(before, m, "parley_jobs_finished_total", { kind: "index_source" }) > 0
              ? m
              : null;
          },
          "the job to be counted",
          5000,
        );
        assertEquals(
          moved(before, after, "parley_jobs_finished_total", {
            kind: "index_source",
            outcome: "done",
          }),
          1,
        );
        assertEquals(
          moved(before, after, "parley_job_duration_seconds_count", { kind: "index_source" }),
          1,
        );
        // Pages are embedded where pgvector is available (embedded mode always).
        const embeddings = moved(before, after, "parley_ai_provider_calls_total", {
          provider: "provider_1",
          operation: "embeddings",
          outcome: "ok",
        });
        assertOk(s.deps.db.vector ? embeddings >= 1 : embeddings === 0);
        assertEquals(after.sum("parley_jobs", { kind: "index_source", status: "queued" }), 0);
        assertEquals(after.sum("parley_jobs", { kind: "index_source", status: "running" }), 0);
        assertMatch(after.text, /^# TYPE parley_jobs_oldest_age_seconds gauge$/m);
        assertOk(!after.text.includes(site.url), "no crawled address in a label");
      });

      await t.step("a webhook delivered", async () => {
        const before = await metrics();
        const r = await http(s.url, "POST", "/api/portal/webhooks", {
          token: T.acme.owner.portal,
          body: { url: `${receiver.url}/hook`, events: ["conversation.created"] },
        });
        assertEquals(r.status, 201, r.text);
        await postStream(s.url, KEY, {
          visitor_id: `v_metrics_hook_${crypto.randomUUID().slice(0, 8)}`,
          message: "Hello there",
        });
        await receiver.waitFor(1);
        const after = await pollUntil(
          async () => {
            const m = await metrics();
            return moved(before, m, "parley_webhook_deliveries_total", { outcome: "succeeded" }) >=
                1
              ? m
              : null;
          },
          "the delivery to be counted",
          5000,
        );
        assertEquals(
          moved(before, after, "parley_webhook_deliveries_total", { outcome: "failed" }),
          0,
        );
      });

      await t.step("unknown paths and methods stay one series each", async () => {
        const before = await metrics();
        await http(s.url, "GET", `/no/such/${crypto.randomUUID()}`);
        const notAllowed = await http(s.url, "DELETE", "/api/v1/me");
        assertEquals(notAllowed.status, 405);
        const after = await metrics();
        assertEquals(
          moved(before, after, "parley_http_requests_total", {
            route: "(method not allowed)",
            method: "DELETE",
          }),
          1,
        );
        assertEquals(
          moved(before, after, "parley_http_requests_total", {
            route: "(unmatched)",
            status: "404",
          }),
          1,
        );
        assertOk(!after.text.includes("/no/such/"));
      });

      await t.step("the event loop's delay: a stall shows in its histogram", async () => {
        // The server runs in this process: a busy wait here holds its event loop too.
        const late = (x: Scrape) =>
          x.sum("parley_event_loop_delay_seconds_count") -
          x.sum("parley_event_loop_delay_seconds_bucket", { le: "0.1" });
        const before = await metrics();
        assertOk(before.sum("parley_event_loop_delay_seconds_count") > 0, "sampled from the start");
        const until = performance.now() + 250;
        while (performance.now() < until) { /* the stall */ }
        await new Promise((r) => setTimeout(r, 60));
        const after = await metrics();
        assertOk(late(after) - late(before) >= 1, "a sample past 100 ms: the stall");
        assertOk(moved(before, after, "parley_event_loop_delay_seconds_sum") >= 0.2);
      });
    } finally {
      await s.stop();
      await receiver.stop();
      await site.close();
      await fake.close();
    }
  },
);

Deno.test("metrics: the start banner says where to scrape, or how to turn metrics on", () => {
  const ai = { aiBaseUrl: "http://127.0.0.1:9/v1", aiApiKey: null, keysStored: false };
  const on = banner("http://localhost:8080", null, ai, { metricsToken: TOKEN, tracing: true });
  assertMatch(on, /Metrics:\s+http:\/\/localhost:8080\/metrics \(Authorization: Bearer/);
  assertMatch(on, /Traces:\s+OpenTelemetry over OTLP/);
  assertOk(!on.includes(TOKEN), "the token itself is never printed");
  const off = banner("http://localhost:8080", null, ai);
  assertMatch(off, /Metrics:\s+off \(set METRICS_TOKEN/);
  assertOk(!off.includes("Traces:"));
});
