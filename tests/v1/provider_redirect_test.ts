/**
 * A provider that answers with a redirect (domain/ai/provider_redirects.ts):
 * a 307 to another path and a 308 to another origin on the configured host
 * are followed with the method and body kept, the key going only to its own
 * origin; a 308 to an address the one address policy refuses, a 302 (which
 * would drop the POST's body), and a loop are answered as they are, a 502
 * naming the status. Runs on whichever provider stack PROVIDER_HTTP names.
 */
import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import {
  answerNormally,
  head,
  type RawReply,
  type RawRequest,
  startRawProvider,
} from "../helpers/raw_provider.ts";
import { postStream } from "../widget/widget_client.ts";

const PATH = "/api/v1/chatbots/acme-helper/messages";

Deno.test("provider redirects: 307 and 308 followed by the rules", serverTestOptions, async (t) => {
  let script: (req: RawRequest, reply: RawReply) => Promise<void> = (req, reply) =>
    answerNormally(req, reply, "Here.");
  const first = startRawProvider((req, reply) => script(req, reply));
  const second = startRawProvider((req, reply) => answerNormally(req, reply, "Moved here."));
  const s = await startTestServer({
    seed: standardSeed(),
    env: { AI_BASE_URL: first.baseUrl, AI_TIMEOUT_MS: "3000", TRUSTED_PROXIES: "127.0.0.1" },
  });
  const ask = (visitor: string) =>
    http(s.url, "POST", PATH, {
      token: T.acme.owner.api,
      body: { message: "Where?", visitor_id: visitor },
    });
  const moved = (status: number, location: string) => async (req: RawRequest, reply: RawReply) => {
    if (req.path.includes("/moved/")) return await answerNormally(req, reply, "Same host.");
    await reply.write(head(status, { location, "content-length": 0 }));
  };
  try {
    await t.step("a 307 to another path: followed, method, body and key kept", async () => {
      script = moved(307, "/v1/moved/chat/completions");
      const before = first.requests.length;
      const r = await ask("rd-1");
      assertEquals(r.status, 200, r.text);
      assertEquals(r.body.reply.content, "Same host.");
      const [asked, followed] = first.requests.slice(before);
      assertEquals(followed?.path, "/v1/moved/chat/completions");
      assertEquals(followed?.method, "POST");
      assertEquals(followed?.body, asked?.body);
      assertEquals(followed?.headers.get("authorization"), asked?.headers.get("authorization"));
      const streamed = await postStream(s.url, "acme-helper", {
        visitor_id: "rd-1s",
        message: "Streamed?",
      });
      assertEquals(streamed.events.at(-1)!.event, "done", streamed.text);
    });

    await t.step("a 308 to another origin on the same host: followed, no key sent", async () => {
      script = moved(308, `${second.baseUrl}/chat/completions`);
      const r = await ask("rd-2");
      assertEquals(r.status, 200, r.text);
      assertEquals(r.body.reply.content, "Moved here.");
      const got = second.requests.at(-1)!;
      assertEquals(got.method, "POST");
      assertEquals(got.body.messages.at(-1).content, "Where?");
      assertEquals(got.headers.get("authorization"), null);
    });

    await t.step("a 308 to a private address: not followed, a 502 naming it", async () => {
      script = moved(308, "http://169.254.169.254/v1/chat/completions");
      const r = await ask("rd-3");
      assertEquals(r.status, 502, r.text);
      assertMatch(r.body.message, /HTTP 308/);
    });

    await t.step("a 302 and a loop are answered as they are", async () => {
      script = moved(302, "/v1/moved/chat/completions");
      const r = await ask("rd-4");
      assertEquals(r.status, 502, r.text);
      assertMatch(r.body.message, /HTTP 302/);
      script = async (_req, reply) => {
        await reply.write(head(307, { location: "/v1/chat/completions", "content-length": 0 }));
      };
      const before = first.requests.length;
      const loop = await ask("rd-5");
      assertEquals(loop.status, 502, loop.text);
      assertMatch(loop.body.message, /HTTP 307/);
      assertEquals(first.requests.length - before, 4, "the first request and three hops");
    });
  } finally {
    await s.stop();
    await first.close();
    await second.close();
  }
});
