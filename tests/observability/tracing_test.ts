/**
 * OpenTelemetry traces (docs/operations.md): a server started with
 * OTEL_DENO=true exports to a local OTLP receiver, and one widget stream is
 * one trace: the door's span, the turn under it, retrieval and the provider
 * call under the turn (with the first delta marked), the events published.
 * The request's log line carries the same trace id. The runtime reads
 * OTEL_DENO at start, so this server runs in a subprocess.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions } from "../helpers/test_server.ts";
import { standardSeed } from "../helpers/fixtures.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { freePort, waitReady } from "../helpers/net.ts";
import { createStorage, serverEnv } from "../foundation/server_with_deps.ts";
import { postStream } from "../widget/widget_client.ts";
import { pollUntil } from "../portal/poll.ts";
import { type ReceivedSpan, startOtlpReceiver } from "../helpers/otlp_receiver.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

Deno.test("tracing: one widget stream is one trace", serverTestOptions, async (t) => {
  const fake = startFakeAi({ reply: "Our support desk is open Monday to Friday." });
  const otlp = startOtlpReceiver();
  const storage = await createStorage();
  const port = freePort();
  const env = serverEnv(storage, {
    PORT: String(port),
    REALTIME_PORT: "0",
    LOG_LEVEL: "info",
    AI_BASE_URL: fake.baseUrl,
    OTEL_DENO: "true",
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_SERVICE_NAME: "parley-test",
  });
  env.SEED_FILE = `${storage.dataDir}/seed.json`;
  await Deno.writeTextFile(env.SEED_FILE, JSON.stringify(standardSeed()));
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN],
    env,
    stdout: "piped",
    stderr: "null",
  }).spawn();
  let stdout = "";
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) stdout += decoder.decode(chunk, { stream: true });
  })();
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitReady(`${url}/healthz`);
    let trace: ReceivedSpan[] = [];
    let conversationId = "";

    await t.step("the stream's spans arrive as one trace", async () => {
      const r = await postStream(url, "acme-helper", {
        visitor_id: `v_trace_${crypto.randomUUID().slice(0, 8)}`,
        message: "When are you open?",
      });
      assertEquals(r.events.at(-1)!.event, "done");
      conversationId = r.events[0]!.data.conversation_id;
      // The runtime exports in batches (about every second).
      const door = await pollUntil(
        () =>
          Promise.resolve(
            otlp.spans.find((s) => s.name === "POST /widget/{key}/stream") ?? null,
          ),
        "the door's span",
        20_000,
      );
      trace = await pollUntil(
        () => {
          const spans = otlp.spans.filter((s) => s.traceId === door.traceId);
          const names = new Set(spans.map((s) => s.name));
          return Promise.resolve(
            ["widget.turn", "retrieval", "ai.chat", "event.publish"].every((n) => names.has(n))
              ? spans
              : null,
          );
        },
        "the turn's spans",
        20_000,
      );
    });

    await t.step("door > turn > retrieval and provider call, first delta marked", () => {
      const one = (name: string) => {
        const found = trace.filter((s) => s.name === name);
        assertOk(found.length >= 1, `${name} in ${trace.map((s) => s.name).join(", ")}`);
        return found[0]!;
      };
      const door = one("POST /widget/{key}/stream");
      assertEquals(door.parentSpanId, "", "the door's span is the trace's root");
      assertEquals(door.attributes["http.route"], "/widget/{key}/stream");
      const turn = one("widget.turn");
      assertEquals(turn.parentSpanId, door.spanId);
      const retrieval = one("retrieval");
      assertEquals(retrieval.parentSpanId, turn.spanId);
      const chat = one("ai.chat");
      assertEquals(chat.parentSpanId, turn.spanId);
      assertEquals(chat.attributes["gen_ai.system"], "provider_1");
      assertEquals(chat.attributes["gen_ai.request.model"], "gpt-4o-mini");
      assertOk(Number(chat.attributes["gen_ai.usage.output_tokens"]) > 0);
      assertOk(chat.events.includes("first_delta"), `events: ${chat.events.join(", ")}`);
      // The provider's own HTTP request, a client span under the call, whose trace
      // context went out with the request (a gateway that traces continues the trace).
      const request = trace.find((s) => s.parentSpanId === chat.spanId);
      assertOk(request, "the provider's HTTP request is a child of the call");
      const sent = fake.requests.findLast((r) => r.stream)?.traceparent;
      assertEquals(sent?.split("-").slice(1, 3), [request.traceId, request.spanId]);
      // The turn's SQL statements, under the spans that ran them, with no values.
      const statements = trace.filter((s) => s.name.startsWith("db "));
      assertOk(statements.some((s) => s.name === "db INSERT" || s.name === "db WITH"));
      for (const s of statements) {
        assertEquals(s.attributes["db.system"], "postgresql");
        assertOk(String(s.attributes["db.query.text"]).length > 0);
      }
      // Work the request sets off but does not wait for (subscribers, the job runner) is not in it.
      assertOk(
        !statements.some((s) => String(s.attributes["db.query.text"]).startsWith("UPDATE jobs")),
        "no job runner statements in the request's trace",
      );
      const publish = trace.filter((s) => s.name === "event.publish");
      assertOk(publish.some((s) => s.attributes["parley.event.type"] === "message.created"));
      // Every span of the stream belongs to it: one trace, no orphans.
      const ids = new Set(trace.map((s) => s.spanId));
      for (const s of trace) {
        assertOk(s.parentSpanId === "" || ids.has(s.parentSpanId), `${s.name} has its parent`);
      }
      const attributes = JSON.stringify(trace.map((s) => s.attributes));
      assertOk(!attributes.includes("When are you open?"), "no message text in spans");
      assertOk(conversationId.length > 0);
    });

    await t.step("the request's log line carries the trace id", async () => {
      const door = trace.find((s) => s.name === "POST /widget/{key}/stream")!;
      const line = await pollUntil(
        () =>
          Promise.resolve(
            stdout.split("\n").find((l) =>
              l.includes('"route":"/widget/{key}/stream"') && l.includes(door.traceId)
            ) ?? null,
          ),
        "the request log line",
        5000,
      );
      assertEquals(JSON.parse(line).trace_id, door.traceId);
    });
  } finally {
    child.kill("SIGTERM");
    // Deno with OTEL_DENO=true sometimes never exits after a clean stop (denoland/deno#33157).
    const hung = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch { /* exited meanwhile */ }
    }, 15_000);
    await child.status;
    clearTimeout(hung);
    await reading.catch(() => {});
    await otlp.close();
    await fake.close();
    await storage.drop();
  }
});
