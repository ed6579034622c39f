/**
 * Provider calls over TLS (domain/ai/http1/pool.ts: Deno.startTls): a
 * certificate the runtime trusts is accepted and its connection kept alive
 * for the next call; one it does not trust is refused before any request is
 * written, and the 502 names a TLS failure. The server runs in a process of
 * its own with DENO_CERT naming a test CA (the runtime reads it at start);
 * the certificates are made with openssl for this run.
 */
import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { serverTestOptions } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startServerProcess } from "../helpers/server_process.ts";
import { freePort } from "../helpers/net.ts";
import { postStream } from "../widget/widget_client.ts";
import { hasOpenssl, makeCertificates } from "../helpers/test_certificates.ts";
import { tlsProvider } from "../helpers/tls_provider.ts";

const PATH = "/api/v1/chatbots/acme-helper/messages";

Deno.test({
  name: "provider calls over TLS: a trusted certificate is used, an untrusted one refused",
  ignore: !hasOpenssl,
  ...serverTestOptions,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "parley-tls-" });
    const certs = await makeCertificates(dir);
    const port = freePort();
    let provider = tlsProvider(port, certs.good);
    const server = await startServerProcess({
      seed: standardSeed(),
      env: {
        DENO_CERT: certs.ca,
        AI_BASE_URL: `https://localhost:${port}/v1`,
        AI_TIMEOUT_MS: "3000",
        TRUSTED_PROXIES: "127.0.0.1",
      },
    });
    const url = server.instance.url;
    try {
      await t.step(
        "a certificate the runtime trusts: answered, one kept-alive connection",
        async () => {
          const r = await postStream(url, "acme-helper", {
            visitor_id: "tls-1",
            message: "Secure?",
          });
          assertEquals(r.events.at(-1)!.event, "done", r.text);
          const v1 = await http(url, "POST", PATH, {
            token: T.acme.owner.api,
            body: { message: "Still secure?", visitor_id: "tls-2" },
          });
          assertEquals(v1.status, 200, v1.text);
          assertEquals(v1.body.reply.content, "Served over TLS.");
          assertEquals(provider.clientPorts.length, 2);
          assertEquals(
            new Set(provider.clientPorts).size,
            1,
            "the second call reused the connection",
          );
        },
      );

      await t.step("a certificate it does not trust: refused, named a TLS failure", async () => {
        await provider.close(); // its kept-alive connection closes with it
        provider = tlsProvider(port, certs.bad);
        const r = await http(url, "POST", PATH, {
          token: T.acme.owner.api,
          body: { message: "Who are you?", visitor_id: "tls-3" },
        });
        assertEquals(r.status, 502, r.text);
        assertMatch(r.body.message, /could not be reached \(TLS failure\)/);
        assertEquals(provider.clientPorts.length, 0, "no request reached the untrusted server");
      });
    } finally {
      await server.stop();
      await provider.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
