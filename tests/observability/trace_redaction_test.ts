/**
 * What a trace collector receives never names a visitor or carries a
 * credential (docs/operations.md, "What traces never carry"): a server
 * started with OTEL_DENO=true exports to a local OTLP receiver while every
 * surface is driven with a distinctive visitor id (in query strings, bodies
 * and a path), the bot key in paths and a tRPC input, a conversation's UUID
 * in paths, bearer tokens in headers, and webhook addresses holding a secret
 * (one delivered, one refused). Everything the runtime exported (spans of
 * both listeners, the runtime's fetch, SQL statements, log records, metrics)
 * is then searched for each of them and for the start banner (the demo's
 * password and token), and the requests' spans must name their route
 * templates instead. The runtime reads OTEL_DENO at start, so the server runs
 * in a process of its own.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { startServerProcess } from "../helpers/server_process.ts";
import { freePort } from "../helpers/net.ts";
import {
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from "../helpers/otlp_receiver.ts";
import { startWebhookReceiver } from "../helpers/webhook_receiver.ts";
import { postStream } from "../widget/widget_client.ts";
import { pollUntil } from "../portal/poll.ts";

const SEED_KEY = "acme-helper";
const PROVIDER_KEY = "sk-acme-test-key-1234";

/** Server spans (OTLP kind 2) named `METHOD template`, one per request below. */
const EXPECTED = [
  "GET /widget/{key}/config",
  "POST /widget/{key}/stream",
  "GET /widget/{key}/conversation",
  "POST /widget/{key}/heartbeat",
  "GET /api/v1/conversations/{conversation}",
  "GET /api/portal/chatbots/{key}",
  "GET /api/agent/conversations/{conversation}",
  "POST /api/agent/visitors/{visitor}/invite",
  "GET /trpc/{procedure}",
  "GET /widget.js",
  "GET /app/{key}",
];

/** Every place in an export where a string can travel, as `where: text` lines. */
function exportedText(otlp: OtlpReceiver): string {
  return otlp.exports.map((e) => `${e.path}: ${e.text}`).join("\n");
}

function serverSpans(otlp: OtlpReceiver): ReceivedSpan[] {
  return otlp.spans.filter((s) => s.kind === 2);
}

Deno.test("traces: no visitor id, key, conversation id or token leaves in any export", {
  ...serverTestOptions,
}, async (t) => {
  const suffix = crypto.randomUUID().slice(0, 8);
  const botKey = `bk-trace-${suffix}`;
  const visitorId = `v_trace_${suffix}`;
  const hookSecret = `hook_secret_${suffix}`;
  const fake = startFakeAi({ reply: "Our support desk is open Monday to Friday." });
  const receiver = startWebhookReceiver();
  const deadPort = freePort(); // nothing listens there: a delivery that fails
  const otlp = startOtlpReceiver();
  const seed = JSON.parse(
    JSON.stringify(standardSeed()).replaceAll(`"${SEED_KEY}"`, `"${botKey}"`),
  );
  const server = await startServerProcess({
    seed,
    env: {
      AI_BASE_URL: fake.baseUrl,
      TRUSTED_PROXIES: "127.0.0.1",
      WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${receiver.port},127.0.0.1:${deadPort}`,
      // The demo workspace: its password and token are in the start banner.
      DEMO: "1",
      OTEL_DENO: "true",
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "parley-test",
      // Short batches, so the test waits a fraction of a second for each export.
      OTEL_BSP_SCHEDULE_DELAY: "200",
      OTEL_BLRP_SCHEDULE_DELAY: "200",
      OTEL_METRIC_EXPORT_INTERVAL: "500",
    },
  });
  const url = server.instance.url;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const ip = { "x-forwarded-for": "10.77.0.1" };
  let conversationId = "";
  const signingSecrets: string[] = [];
  try {
    await t.step(
      "drive every surface with the secrets in paths, queries, bodies, headers",
      async () => {
        const q = `visitor_id=${visitorId}`;
        // Webhooks whose addresses carry a secret (as Slack's do), delivered by the runtime's
        // fetch: one answered, one refused (the runtime's error names the address it failed on).
        for (const origin of [receiver.url, `http://127.0.0.1:${deadPort}`]) {
          const hook = await fetch(`${url}/api/portal/webhooks`, {
            method: "POST",
            headers: { ...bearer(T.acme.owner.portal), "content-type": "application/json" },
            body: JSON.stringify({
              url: `${origin}/hook/${hookSecret}?token=${hookSecret}`,
              events: ["conversation.created"],
            }),
          });
          const created = await hook.json();
          assertEquals(hook.status, 201, JSON.stringify(created));
          assertOk(String(created.data.secret).startsWith("whsec_"), JSON.stringify(created));
          signingSecrets.push(created.data.secret);
        }
        const config = await fetch(`${url}/widget/${botKey}/config?${q}`, { headers: ip });
        assertEquals(config.status, 200, await config.text());
        const stream = await postStream(`${url}`, `${botKey}`, {
          visitor_id: visitorId,
          message: "When are you open?",
        }, ip);
        assertEquals(stream.events.at(-1)?.event, "done", stream.text);
        conversationId = stream.events[0]!.data.conversation_id;
        const conv = `conversation_id=${conversationId}`;
        const snapshot = await fetch(`${url}/widget/${botKey}/conversation?${q}&${conv}`, {
          headers: ip,
        });
        assertEquals(snapshot.status, 200, await snapshot.text());
        const beat = await fetch(`${url}/widget/${botKey}/heartbeat?${q}`, {
          method: "POST",
          headers: { ...ip, "content-type": "application/json" },
          body: JSON.stringify({
            visitor_id: visitorId,
            conversation_id: conversationId,
            chat_open: true,
            page_url: `https://shop.example/cart?visitor=${visitorId}`,
          }),
        });
        assertEquals(beat.status, 200, await beat.text());
        const v1 = await fetch(`${url}/api/v1/conversations/${conversationId}?${q}`, {
          headers: bearer(T.acme.owner.api),
        });
        assertEquals(v1.status, 200, await v1.text());
        const portal = await fetch(`${url}/api/portal/chatbots/${botKey}`, {
          headers: bearer(T.acme.owner.portal),
        });
        assertEquals(portal.status, 200, await portal.text());
        const agent = await fetch(`${url}/api/agent/conversations/${conversationId}`, {
          headers: bearer(T.acme.owner.agent),
        });
        assertEquals(agent.status, 200, await agent.text());
        const invite = await fetch(`${url}/api/agent/visitors/${visitorId}/invite`, {
          method: "POST",
          headers: { ...bearer(T.acme.owner.agent), "content-type": "application/json" },
          body: "{}",
        });
        await invite.body?.cancel(); // whatever it answers, its path named the visitor
        const input = encodeURIComponent(JSON.stringify({ key: botKey }));
        const trpc = await fetch(`${url}/trpc/v1.showBot?input=${input}`, {
          headers: bearer(T.acme.owner.api),
        });
        assertEquals(trpc.status, 200, await trpc.text());
        const asset = await fetch(`${url}/widget.js?${q}`);
        assertEquals(asset.status, 200);
        await asset.body?.cancel();
        const socketOnMain = await fetch(`${url}/app/${botKey}?${q}`);
        await socketOnMain.body?.cancel();
        // Paths no route knows, and a method a route does not allow, with the secrets in them.
        const unknown = await fetch(`${url}/nowhere/${botKey}/${visitorId}?${q}`);
        assertEquals(unknown.status, 404);
        await unknown.body?.cancel();
        const wrongMethod = await fetch(`${url}/widget/${botKey}/stream?${q}`, { method: "PUT" });
        assertEquals(wrongMethod.status, 405);
        await wrongMethod.body?.cancel();
        // The socket listener: a plain request and a WebSocket, the visitor in the query.
        const plain = await fetch(
          `http://127.0.0.1:${server.instance.realtimePort}/app/parley?${q}`,
        );
        await plain.body?.cancel();
        const ws = new WebSocket(
          `ws://127.0.0.1:${server.instance.realtimePort}/app/parley?protocol=7&${q}`,
        );
        const opened = await new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error("no frame from the socket")), 10_000);
          ws.onmessage = (e) => {
            clearTimeout(timer);
            resolve(String(e.data));
          };
          ws.onerror = () => {
            clearTimeout(timer);
            reject(new Error("the socket failed"));
          };
        });
        assertOk(opened.includes("pusher:connection_established"), opened);
        ws.close();
        await receiver.waitFor(1);
      },
    );

    await t.step("every request's server span arrives, named by its route template", async () => {
      await pollUntil(
        () => {
          // The placeholders' spans too: the exporter sends in batches, so the
          // 405's span can come after every templated one (CI saw it late).
          const spans = serverSpans(otlp);
          const names = new Set(spans.map((s) => s.name));
          const routes = new Set(spans.map((s) => s.attributes["http.route"]));
          return Promise.resolve(
            EXPECTED.every((n) => names.has(n)) && routes.has("(unmatched)") &&
              routes.has("(method not allowed)"),
          );
        },
        "the requests' server spans",
        20_000,
      ).catch((err) => {
        const names = [...new Set(serverSpans(otlp).map((s) => s.name))].sort();
        throw new Error(`${err.message}; server spans seen: ${names.join(", ")}`);
      });
      const main = new URL(url).origin;
      for (const span of serverSpans(otlp)) {
        const full = span.attributeList.filter(([k]) => k === "url.full").map(([, v]) => v);
        assertOk(!("url.query" in span.attributes), `${span.name} has no url.query`);
        if (!String(full[0]).startsWith(main)) {
          // The socket listener's (node:http) spans: the runtime names them by method only.
          assertEquals(full, [`http://127.0.0.1:${server.instance.realtimePort}`], span.name);
          assertOk(!("url.path" in span.attributes), `${span.name} has no url.path`);
          continue;
        }
        const route = span.attributes["http.route"];
        assertOk(typeof route === "string", `${span.name} has http.route`);
        assertEquals(span.name, `${span.attributes["http.request.method"]} ${route}`);
        if (route.startsWith("/")) {
          assertEquals(span.attributes["url.path"], route, `${span.name}: url.path`);
          assertEquals(full, [`${main}${route}`], `${span.name}: url.full`);
        } else { // a placeholder: (unmatched), (method not allowed)
          assertOk(!("url.path" in span.attributes), `${span.name} has no url.path`);
          assertEquals(full, [main], `${span.name}: url.full`);
        }
      }
      const routes = new Set(serverSpans(otlp).map((s) => s.attributes["http.route"]));
      assertOk(routes.has("(unmatched)") && routes.has("(method not allowed)"), [...routes].join());
      // The webhook's delivery: the runtime's fetch span, its address cut to the origin.
      const delivery = await pollUntil(
        () =>
          Promise.resolve(
            otlp.spans.find((s) => s.kind === 3 && s.attributes["url.full"] === receiver.url) ??
              null,
          ),
        "the webhook delivery's client span",
        10_000,
      );
      assertOk(!("url.path" in delivery.attributes) && !("url.query" in delivery.attributes));
      const refused = await pollUntil(
        () =>
          Promise.resolve(
            otlp.spans.find((s) =>
              s.kind === 3 && s.attributes["url.full"] === `http://127.0.0.1:${deadPort}`
            ) ?? null,
          ),
        "the refused delivery's client span",
        10_000,
      );
      assertEquals(refused.statusCode, 2, "the refused delivery is an error");
    });

    await t.step(
      "no export carries the visitor id, the key, the conversation or a token",
      async () => {
        // Let the last batches (the stream's late spans, logs, metrics) leave, then stop:
        // the runtime flushes what it holds on exit, and that goes through the same check.
        await new Promise((r) => setTimeout(r, 1000));
        await server.stop();
        const text = exportedText(otlp);
        assertOk(otlp.exports.some((e) => e.path === "/v1/logs"), "log records were exported");
        assertOk(otlp.exports.some((e) => e.path === "/v1/metrics"), "metrics were exported");
        const secrets: Record<string, string> = {
          "visitor id": visitorId,
          "bot key": botKey,
          "conversation id": conversationId,
          "v1 token": T.acme.owner.api,
          "portal token": T.acme.owner.portal,
          "agent token": T.acme.owner.agent,
          "provider key": PROVIDER_KEY,
          "webhook address secret": hookSecret,
          "webhook signing secret": signingSecrets[0]!,
          "second webhook signing secret": signingSecrets[1]!,
        };
        for (const [what, secret] of Object.entries(secrets)) {
          assertOk(secret && secret.length >= 8, `the ${what} is known`);
          const at = text.indexOf(secret);
          assertOk(
            at === -1,
            `the ${what} was exported: …${text.slice(Math.max(0, at - 300), at + 100)}…`,
          );
        }
        // The start banner (the demo's password and settings token) stays on the terminal.
        const banner = otlp.logs.find((l) => l.body.includes("Settings token"));
        assertOk(!banner, `the start banner was exported: ${banner?.body}`);
      },
    );
  } finally {
    await server.stop().catch(() => {});
    await otlp.close();
    await receiver.stop();
    await fake.close();
  }
});
