/**
 * The /trpc door answers like the REST door: the same rate-limit headers on
 * every answer of a limited route (Retry-After on the refusal), and our own
 * sentence for input that is not JSON, never the parser's text.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { freshIp, WIDGET_ENV } from "../widget/widget_client.ts";

Deno.test("tRPC door parity with REST", serverTestOptions, async (t) => {
  const s = await startTestServer({ seed: standardSeed(), env: WIDGET_ENV });
  const input = encodeURIComponent(JSON.stringify({ key: "acme-helper" }));
  try {
    for (
      const [door, path] of [
        ["REST", "/widget/acme-helper/config"],
        ["tRPC", `/trpc/widget.config?input=${input}`],
      ] as const
    ) {
      await t.step(
        `${door}: limited calls carry X-RateLimit-*, the refusal Retry-After`,
        async () => {
          const ip = freshIp();
          for (let i = 1; i <= 60; i++) {
            const r = await http(s.url, "GET", path, { headers: ip });
            assertEquals(r.status, 200, r.text);
            assertEquals(r.headers.get("x-ratelimit-limit"), "60");
            assertEquals(r.headers.get("x-ratelimit-remaining"), String(60 - i));
          }
          const refused = await http(s.url, "GET", path, { headers: ip });
          assertEquals(refused.status, 429, refused.text);
          assertEquals(refused.headers.get("x-ratelimit-limit"), "60");
          assertEquals(refused.headers.get("x-ratelimit-remaining"), "0");
          const retry = Number(refused.headers.get("retry-after"));
          assertOk(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
          const message = refused.body.message ?? refused.body.error.message;
          assertEquals(message, "Too many requests. Please slow down.");
        },
      );
    }

    await t.step("a login lockout carries Retry-After on /trpc as on REST", async () => {
      for (const door of ["/api/portal/login", "/trpc/portal.login"]) {
        const ip = freshIp();
        const attempt = (password: string) =>
          http(s.url, "POST", door, {
            body: { email: "owner@acme.test", password },
            headers: ip,
          });
        for (let i = 0; i < 5; i++) await attempt("wrong");
        const locked = await attempt("wrong");
        assertEquals(locked.status, 429, `${door}: ${locked.text}`);
        assertOk(Number(locked.headers.get("retry-after")) >= 1, `${door}: no Retry-After`);
      }
    });

    await t.step("malformed input gets our sentence on both doors", async () => {
      const get = await http(s.url, "GET", "/trpc/v1.me?input=%zz", { token: T.acme.owner.api });
      assertEquals(get.status, 400, get.text);
      assertEquals(get.body.error.message, "The input query parameter is not valid JSON.");
      assertOk(!get.text.includes("Unexpected token"), get.text);
      const post = await http(s.url, "POST", "/trpc/v1.sendMessage", {
        token: T.acme.owner.api,
        rawBody: "{nope",
      });
      assertEquals(post.status, 400, post.text);
      assertEquals(post.body.error.message, "The request body is not valid JSON.");
      const rest = await http(s.url, "POST", "/api/v1/chatbots/acme-helper/messages", {
        token: T.acme.owner.api,
        rawBody: "{nope",
      });
      assertEquals([rest.status, rest.body], [400, {
        message: "The request body is not valid JSON.",
      }]);
    });
  } finally {
    await s.stop();
  }
});
