/**
 * Provider failures on POST /api/v1/chatbots/{key}/messages: a refused key,
 * a 5xx (retried once), a timeout (not retried), a refused connection
 * (retried once) and a missing key all answer 502 with a message pointing at
 * the workspace's provider key, and the visitor's message stays stored.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { refusedBaseUrl, startFakeAi } from "../helpers/fake_ai.ts";

const owner = T.acme.owner.api;
const PATH = "/api/v1/chatbots/acme-helper/messages";

Deno.test("v1 provider failures", serverTestOptions, async (t) => {
  const fake = startFakeAi();
  const s = await startTestServer({
    seed: standardSeed(),
    env: { AI_BASE_URL: fake.baseUrl, AI_TIMEOUT_MS: "800" },
  });
  const refused = await startTestServer({
    seed: standardSeed(),
    env: { AI_BASE_URL: refusedBaseUrl() },
  });
  /** The newest conversation's messages, read back through v1. */
  const lastThread = async (url: string) => {
    const list = await http(url, "GET", "/api/v1/chatbots/acme-helper/conversations", {
      token: owner,
    });
    const id = list.body.data[0].public_id;
    return (await http(url, "GET", `/api/v1/conversations/${id}`, { token: owner })).body.data;
  };
  const expect502 = async (url: string, text: string) => {
    const r = await http(url, "POST", PATH, {
      token: owner,
      body: { message: text, visitor_id: "pf" },
    });
    assertEquals(r.status, 502, r.text);
    assertEquals(Object.keys(r.body).sort(), ["conversation_id", "message"]);
    assertMatch(r.body.message, /provider key configured for the workspace/);
    const thread = await lastThread(url);
    assertEquals(r.body.conversation_id, thread.id, "the 502 names the conversation it kept");
    assertEquals(
      thread.messages.map((m: { role: string; content: string }) => [m.role, m.content]),
      [["visitor", text]],
      "the visitor message is kept, no reply stored",
    );
    return r;
  };
  try {
    await t.step("a refused key is 502 and is not retried", async () => {
      fake.mode = "unauthorized";
      const before = fake.requests.length;
      const r = await expect502(s.url, "refused key?");
      assertMatch(r.body.message, /refused/);
      assertEquals(fake.requests.length - before, 1);
    });

    await t.step("a provider 5xx is retried once, then 502", async () => {
      fake.mode = "server_error";
      const before = fake.requests.length;
      await expect502(s.url, "server error?");
      assertEquals(fake.requests.length - before, 2);
    });

    await t.step("a provider that does not answer in time is 502 without a retry", async () => {
      fake.mode = "timeout";
      const before = fake.requests.length;
      const t0 = performance.now();
      const r = await expect502(s.url, "timeout?");
      assertMatch(r.body.message, /in time/);
      assertOk(performance.now() - t0 < 5000);
      assertEquals(fake.requests.length - before, 1);
    });

    await t.step(
      "after a failure the same conversation answers again once the provider is back",
      async () => {
        fake.mode = "ok";
        const thread = await lastThread(s.url);
        const r = await http(s.url, "POST", PATH, {
          token: owner,
          body: { message: "and now?", visitor_id: "pf", conversation_id: thread.id },
        });
        assertEquals(r.status, 200, r.text);
        assertEquals(r.body.reply.content, "This is the fake answer.");
      },
    );

    await t.step("a refused connection is retried once, then 502", async () => {
      const t0 = performance.now();
      const r = await expect502(refused.url, "anyone there?");
      assertMatch(r.body.message, /could not be reached/);
      assertOk(performance.now() - t0 >= 200, "one retry after a short pause");
    });

    await t.step("no stored key is 502 naming the missing key", async () => {
      const r = await http(s.url, "POST", "/api/v1/chatbots/globex-bot/messages", {
        token: T.globex.owner.api,
        body: { message: "hello", visitor_id: "g" },
      });
      assertEquals(r.status, 502);
      assertMatch(r.body.message, /No API key is configured/);
    });
  } finally {
    await refused.stop();
    await s.stop();
    // The timeout mode's handler sleeps for two minutes; do not wait for it.
    fake.close();
  }
});
