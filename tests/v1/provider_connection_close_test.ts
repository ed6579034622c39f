/**
 * A provider that answers `Connection: close` and closes after every
 * response (some gateways and local model servers do): each call opens a
 * connection of its own, none is written to after the provider's close, and
 * streamed and non-streamed replies arrive whole. Runs on whichever provider
 * stack PROVIDER_HTTP names.
 */
import { assertEquals } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import {
  chunked,
  completionJson,
  head,
  sseReply,
  startRawProvider,
} from "../helpers/raw_provider.ts";
import { postStream } from "../widget/widget_client.ts";

const PATH = "/api/v1/chatbots/acme-helper/messages";
const enc = new TextEncoder();

Deno.test("a provider that closes after each response", serverTestOptions, async () => {
  const provider = startRawProvider(async (req, reply) => {
    if (req.body.stream) {
      await reply.write(head(200, {
        "content-type": "text/event-stream",
        "transfer-encoding": "chunked",
        connection: "close",
      }));
      await reply.write(chunked(sseReply("Closed after this.").split(/(?<=\n\n)/)));
    } else {
      const body = enc.encode(completionJson("Closed after this."));
      await reply.write(head(200, {
        "content-type": "application/json",
        "content-length": body.length,
        connection: "close",
      }));
      await reply.write(body);
    }
    reply.close();
  });
  const s = await startTestServer({
    seed: standardSeed(),
    env: { AI_BASE_URL: provider.baseUrl, AI_TIMEOUT_MS: "3000", TRUSTED_PROXIES: "127.0.0.1" },
  });
  try {
    for (let i = 0; i < 3; i++) {
      const r = await http(s.url, "POST", PATH, {
        token: T.acme.owner.api,
        body: { message: `Again ${i}?`, visitor_id: `cc-${i}` },
      });
      assertEquals(r.status, 200, r.text);
      assertEquals(r.body.reply.content, "Closed after this.");
      const streamed = await postStream(s.url, "acme-helper", {
        visitor_id: `cc-s${i}`,
        message: `Streamed ${i}?`,
      });
      assertEquals(streamed.events.at(-1)!.event, "done", streamed.text);
    }
    assertEquals(provider.requests.length, 6, "each call sent once");
    assertEquals(
      new Set(provider.requests.map((q) => q.conn)).size,
      6,
      "each on a connection of its own",
    );
  } finally {
    await s.stop();
    await provider.close();
  }
});
