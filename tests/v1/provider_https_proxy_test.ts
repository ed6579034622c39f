/**
 * With HTTPS_PROXY set, an https provider is reached through a CONNECT
 * tunnel, and its certificate is still verified end to end (DENO_CERT names
 * the test CA): the provider's host never resolves, so only a tunnel through
 * the proxy can answer. The server runs in a process of its own with the
 * variables in its environment from the start, on whichever provider stack
 * PROVIDER_HTTP names (inherited from this process).
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startServerProcess } from "../helpers/server_process.ts";
import { freePort } from "../helpers/net.ts";
import { hasOpenssl, makeCertificates } from "../helpers/test_certificates.ts";
import { tlsProvider } from "../helpers/tls_provider.ts";
import { startConnectProxy } from "../helpers/connect_proxy.ts";
import { postStream } from "../widget/widget_client.ts";

const HOST = "provider.invalid"; // RFC 6761: never resolves

Deno.test({
  name: "provider calls honour HTTPS_PROXY with a CONNECT tunnel",
  ignore: !hasOpenssl,
  ...serverTestOptions,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "parley-proxy-tls-" });
    const certs = await makeCertificates(dir, HOST);
    const port = freePort();
    const provider = tlsProvider(port, certs.good);
    const proxy = startConnectProxy({ hostname: "127.0.0.1", port });
    const server = await startServerProcess({
      seed: standardSeed(),
      env: {
        DENO_CERT: certs.ca,
        AI_BASE_URL: `https://${HOST}/v1`,
        HTTPS_PROXY: proxy.url,
        NO_PROXY: "",
        DENO_NO_UPDATE_CHECK: "1", // the runtime's own check would go through the proxy too
        AI_TIMEOUT_MS: "5000",
        TRUSTED_PROXIES: "127.0.0.1",
      },
    });
    try {
      const url = server.instance.url;
      const v1 = await http(url, "POST", "/api/v1/chatbots/acme-helper/messages", {
        token: T.acme.owner.api,
        body: { message: "Tunnelled?", visitor_id: "hp-1" },
      });
      assertEquals(v1.status, 200, v1.text);
      assertEquals(v1.body.reply.content, "Served over TLS.");
      const r = await postStream(url, "acme-helper", { visitor_id: "hp-2", message: "Streamed?" });
      assertEquals(r.events.at(-1)!.event, "done", r.text);
      assertEquals(provider.clientPorts.length, 2);
      assertOk(proxy.targets.includes(`${HOST}:443`), proxy.targets.join(", "));
    } finally {
      await server.stop();
      await proxy.close();
      await provider.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
