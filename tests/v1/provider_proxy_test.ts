/**
 * With a proxy named in the environment (HTTP_PROXY), provider calls go
 * through the runtime's fetch, which honours it (domain/ai/provider_fetch.ts):
 * the provider's host is one that never resolves, so only a request sent to
 * the proxy can be answered. The server runs in a process of its own, with
 * the variable in its environment from the start.
 */
import { assertEquals } from "../helpers/assert.ts";
import { serverTestOptions } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startServerProcess } from "../helpers/server_process.ts";
import { answerNormally, startRawProvider } from "../helpers/raw_provider.ts";
import { postStream } from "../widget/widget_client.ts";

Deno.test("provider calls honour HTTP_PROXY", serverTestOptions, async () => {
  // The "proxy" answers as the provider would: a forward proxy's request line names the full URL.
  const proxy = startRawProvider((req, reply) => answerNormally(req, reply, "Through the proxy."));
  const proxyUrl = new URL(proxy.baseUrl).origin;
  const server = await startServerProcess({
    seed: standardSeed(),
    env: {
      AI_BASE_URL: "http://provider.invalid/v1", // RFC 6761: never resolves
      HTTP_PROXY: proxyUrl,
      NO_PROXY: "",
      TRUSTED_PROXIES: "127.0.0.1",
    },
  });
  try {
    const url = server.instance.url;
    const v1 = await http(url, "POST", "/api/v1/chatbots/acme-helper/messages", {
      token: T.acme.owner.api,
      body: { message: "Proxied?", visitor_id: "px" },
    });
    assertEquals(v1.status, 200, v1.text);
    assertEquals(v1.body.reply.content, "Through the proxy.");
    const r = await postStream(url, "acme-helper", { visitor_id: "px2", message: "Streamed?" });
    assertEquals(r.events.at(-1)!.event, "done", r.text);
    assertEquals(
      proxy.requests.map((q) => q.path),
      [
        "http://provider.invalid/v1/chat/completions",
        "http://provider.invalid/v1/chat/completions",
      ],
    );
  } finally {
    await server.stop();
    await proxy.close();
  }
});
