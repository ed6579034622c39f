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

const PATH = "/api/v1/chatbots/acme-helper/messages";

const hasOpenssl = await new Deno.Command("openssl", { args: ["version"], stdout: "null" })
  .output().then((o) => o.success, () => false);

async function openssl(dir: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("openssl", { args, cwd: dir, stdout: "null", stderr: "piped" })
    .output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
}

/** A CA, a certificate it signed for localhost, and a self-signed one nobody trusts. */
async function makeCertificates(dir: string) {
  await openssl(
    dir,
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "2",
    "-subj",
    "/CN=Parley test CA",
  );
  await openssl(
    dir,
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "good.key",
    "-out",
    "good.csr",
    "-subj",
    "/CN=localhost",
  );
  await Deno.writeTextFile(`${dir}/ext.cnf`, "subjectAltName=DNS:localhost\n");
  await openssl(
    dir,
    "x509",
    "-req",
    "-in",
    "good.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "good.pem",
    "-days",
    "2",
    "-extfile",
    "ext.cnf",
  );
  await openssl(
    dir,
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "bad.key",
    "-out",
    "bad.pem",
    "-days",
    "2",
    "-subj",
    "/CN=localhost",
    "-addext",
    "subjectAltName=DNS:localhost",
  );
  const read = (name: string) => Deno.readTextFile(`${dir}/${name}`);
  return {
    ca: `${dir}/ca.pem`,
    good: { cert: await read("good.pem"), key: await read("good.key") },
    bad: { cert: await read("bad.pem"), key: await read("bad.key") },
  };
}

/** A chat-completions provider over TLS on `port`; records each request's client port. */
function tlsProvider(port: number, pair: { cert: string; key: string }) {
  const clientPorts: number[] = [];
  const ac = new AbortController();
  const server = Deno.serve(
    { port, hostname: "127.0.0.1", ...pair, signal: ac.signal, onListen() {} },
    async (req, info) => {
      const body = await req.json();
      if (!new URL(req.url).pathname.endsWith("/chat/completions")) {
        return Response.json({ error: { message: "no" } }, { status: 404 });
      }
      clientPorts.push(info.remoteAddr.port);
      const text = "Served over TLS.";
      if (!body.stream) {
        return Response.json({
          id: "x",
          object: "chat.completion",
          created: 1,
          model: body.model,
          choices: [{
            index: 0,
            message: { role: "assistant", content: text },
            finish_reason: "stop",
          }],
          usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 },
        });
      }
      const event = (delta: unknown) =>
        `data: ${
          JSON.stringify({
            id: "x",
            object: "chat.completion.chunk",
            created: 1,
            model: body.model,
            choices: [{ index: 0, delta, finish_reason: null }],
          })
        }\n\n`;
      return new Response(event({ content: text }) + "data: [DONE]\n\n", {
        headers: { "content-type": "text/event-stream" },
      });
    },
  );
  return {
    clientPorts,
    close: async () => {
      ac.abort();
      await server.finished;
    },
  };
}

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
