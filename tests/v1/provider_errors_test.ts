/**
 * Provider failures, told apart: a refused key (401/403), a provider that
 * cannot be reached (refused connection, time-out), its rate limit (429), its
 * own fault (5xx, retried once), a refused request (unknown model), and no key
 * at all. On v1 each is a 502 whose message names that cause; on the widget
 * stream the `error` event carries the kind's code and a visitor's sentence
 * that never names keys, statuses or settings. The visitor message is kept.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { type FakeMode, refusedBaseUrl, startFakeAi } from "../helpers/fake_ai.ts";
import { postStream } from "../widget/widget_client.ts";

const owner = T.acme.owner.api;
const PATH = "/api/v1/chatbots/acme-helper/messages";
/** Words that belong to the operator, never to a visitor's chat bubble. */
const OPERATOR_WORDS = /key|HTTP|AI_|provider|workspace|configur/i;

Deno.test(
  "provider failures: v1 names the cause, the widget speaks to visitors",
  serverTestOptions,
  async (t) => {
    const fake = startFakeAi();
    const env = { AI_BASE_URL: fake.baseUrl, AI_TIMEOUT_MS: "800", TRUSTED_PROXIES: "127.0.0.1" };
    const s = await startTestServer({ seed: standardSeed(), env });
    const refused = await startTestServer({
      seed: standardSeed(),
      env: { ...env, AI_BASE_URL: refusedBaseUrl() },
    });
    // A name under .invalid never resolves (RFC 6761).
    const unresolved = await startTestServer({
      seed: standardSeed(),
      env: { ...env, AI_BASE_URL: "http://provider.invalid/v1" },
    });
    // No AI_BASE_URL and no AI_API_KEY: a workspace without a stored key has no model at all.
    const bare = await startTestServer({ seed: standardSeed() });
    /** The newest conversation's messages, read back through v1. */
    const lastThread = async (url: string) => {
      const list = await http(url, "GET", "/api/v1/chatbots/acme-helper/conversations", {
        token: owner,
      });
      const id = list.body.data[0].public_id;
      return (await http(url, "GET", `/api/v1/conversations/${id}`, { token: owner })).body.data;
    };
    const expect502 = async (url: string, text: string, cause: RegExp) => {
      const r = await http(url, "POST", PATH, {
        token: owner,
        body: { message: text, visitor_id: "pf" },
      });
      assertEquals(r.status, 502, r.text);
      assertEquals(Object.keys(r.body).sort(), ["conversation_id", "message"]);
      assertMatch(r.body.message, cause);
      const thread = await lastThread(url);
      assertEquals(r.body.conversation_id, thread.id, "the 502 names the conversation it kept");
      assertEquals(
        thread.messages.map((m: { role: string; content: string }) => [m.role, m.content]),
        [["visitor", text]],
        "the visitor message is kept, no reply stored",
      );
      return r;
    };
    const expectStreamError = async (url: string, key: string, code: string) => {
      const visitor = `v-${crypto.randomUUID()}`;
      const r = await postStream(url, key, { visitor_id: visitor, message: "Hello there" });
      assertEquals(r.status, 200, r.text);
      assertEquals(r.events.map((e) => e.event), ["meta", "error"]);
      const error = r.events[1]!.data;
      assertEquals(Object.keys(error).sort(), ["code", "message"]);
      assertEquals(error.code, code);
      assertOk(!OPERATOR_WORDS.test(error.message), `visitor text: ${error.message}`);
      assertMatch(error.message, /try again/i);
      const snap = await http(
        url,
        "GET",
        `/widget/${key}/conversation?visitor_id=${visitor}&conversation_id=${
          r.events[0]!.data.conversation_id
        }`,
      );
      assertEquals(
        snap.body.messages.map((m: { role: string; content: string }) => [m.role, m.content]),
        [["visitor", "Hello there"]],
      );
      return error;
    };
    const withMode = async (mode: FakeMode, fn: () => Promise<void>) => {
      fake.mode = mode;
      try {
        await fn();
      } finally {
        fake.mode = "ok";
      }
    };
    try {
      await t.step("a key refused with 401 is 502 naming the key, not retried", async () => {
        await withMode("unauthorized", async () => {
          const before = fake.requests.length;
          await expect502(s.url, "refused key?", /refused the API key \(HTTP 401\)/);
          assertEquals(fake.requests.length - before, 1);
          await expectStreamError(s.url, "acme-helper", "provider_key_refused");
        });
      });

      await t.step("a key refused with 403 is the same kind", async () => {
        await withMode("forbidden", async () => {
          await expect502(s.url, "forbidden key?", /refused the API key \(HTTP 403\)/);
          await expectStreamError(s.url, "acme-helper", "provider_key_refused");
        });
      });

      await t.step(
        "a provider 5xx is retried once, then 502 saying it is the provider's fault",
        async () => {
          await withMode("server_error", async () => {
            const before = fake.requests.length;
            const r = await expect502(s.url, "server error?", /failed with HTTP 500/);
            assertOk(!/check the provider key/i.test(r.body.message), "the key is not blamed");
            assertEquals(fake.requests.length - before, 2);
            await expectStreamError(s.url, "acme-helper", "provider_error");
          });
        },
      );

      await t.step("the provider's rate limit is 502 naming it, not retried", async () => {
        await withMode("rate_limited", async () => {
          const before = fake.requests.length;
          await expect502(s.url, "too fast?", /rate limiting this key \(HTTP 429\)/);
          assertEquals(fake.requests.length - before, 1);
          const error = await expectStreamError(s.url, "acme-helper", "provider_rate_limited");
          assertMatch(error.message, /busy/);
        });
      });

      await t.step("an unknown model is 502 with the provider's own reason", async () => {
        await withMode("unknown_model", async () => {
          await expect502(
            s.url,
            "which model?",
            /HTTP 404: The model `gpt-4o-mini` does not exist/,
          );
          await expectStreamError(s.url, "acme-helper", "provider_rejected");
        });
      });

      await t.step("a provider that does not answer in time is 502 without a retry", async () => {
        await withMode("timeout", async () => {
          const before = fake.requests.length;
          const t0 = performance.now();
          const r = await expect502(s.url, "timeout?", /did not answer in time/);
          assertOk(!/check the provider key/i.test(r.body.message), "the key is not blamed");
          assertOk(performance.now() - t0 < 5000);
          assertEquals(fake.requests.length - before, 1);
          await expectStreamError(s.url, "acme-helper", "provider_unreachable");
        });
      });

      await t.step(
        "after a failure the same conversation answers again once the provider is back",
        async () => {
          const thread = await lastThread(s.url);
          const r = await http(s.url, "POST", PATH, {
            token: owner,
            body: { message: "and now?", visitor_id: "pf", conversation_id: thread.id },
          });
          assertEquals(r.status, 200, r.text);
          assertEquals(r.body.reply.content, "This is the fake answer.");
        },
      );

      await t.step(
        "a refused connection is retried once, then 502 naming the network",
        async () => {
          const t0 = performance.now();
          const r = await expect502(
            refused.url,
            "anyone there?",
            /could not be reached \(connection refused\)/,
          );
          assertMatch(r.body.message, /AI_BASE_URL/);
          assertOk(performance.now() - t0 >= 200, "one retry after a short pause");
          await expectStreamError(refused.url, "acme-helper", "provider_unreachable");
        },
      );

      await t.step("a host name that does not resolve is 502 saying so", async () => {
        const r = await expect502(
          unresolved.url,
          "where are you?",
          /could not be reached \(host name not found\)/,
        );
        assertOk(!/check the provider key/i.test(r.body.message), "the key is not blamed");
        await expectStreamError(unresolved.url, "acme-helper", "provider_unreachable");
      });

      await t.step("no key anywhere is 502 saying how to configure one", async () => {
        const r = await http(bare.url, "POST", "/api/v1/chatbots/globex-bot/messages", {
          token: T.globex.owner.api,
          body: { message: "hello", visitor_id: "g" },
        });
        assertEquals(r.status, 502);
        assertMatch(r.body.message, /No API key is configured for the bot's AI provider \(OpenAI/);
        assertMatch(r.body.message, /key:set/);
        assertMatch(r.body.message, /AI_API_KEY/);
        await expectStreamError(bare.url, "globex-bot", "provider_not_configured");
      });
    } finally {
      await bare.stop();
      await unresolved.stop();
      await refused.stop();
      await s.stop();
      // The timeout mode's handler sleeps for two minutes; do not wait for it.
      fake.close();
    }
  },
);
