/**
 * The /trpc door answers like the REST door: the same rate-limit headers on
 * every answer of a limited route (Retry-After on the refusal), a body it
 * cannot read (a media type tRPC does not take, too large) counted in the
 * limit as on REST, and our own sentence for input that is not JSON, never
 * the parser's text.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
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

    await t.step(
      "a login body tRPC cannot read (text/plain, no type, too large) is counted, with X-RateLimit-*",
      async () => {
        const logins = ["portal", "agent", "dashboard"];
        for (const surface of logins) {
          const ip = freshIp();
          const body = JSON.stringify({ email: `nobody-${surface}@acme.test`, password: "x" });
          const attempt = (path: string, headers: Record<string, string>, rawBody = body) =>
            http(s.url, "POST", path, { rawBody, headers: { ...ip, ...headers } });
          const plain = await attempt(`/trpc/${surface}.login`, { "content-type": "text/plain" });
          assertEquals(plain.status, 415, `${surface}: ${plain.text}`);
          assertEquals(plain.body.error.data.code, "UNSUPPORTED_MEDIA_TYPE");
          assertMatch(plain.body.error.message, /"text\/plain" is not supported/);
          assertEquals(plain.headers.get("x-ratelimit-limit"), "10", `${surface}: no limit header`);
          assertEquals(plain.headers.get("x-ratelimit-remaining"), "9");
          // No Content-Type at all (a string body would be sent as text/plain, a bare Blob is not).
          const untyped = await fetch(`${s.url}/trpc/${surface}.login`, {
            method: "POST",
            headers: ip,
            body: new Blob([body]),
          });
          assertEquals([untyped.status, untyped.headers.get("x-ratelimit-remaining")], [415, "8"]);
          await untyped.body?.cancel();
          const huge = await attempt(`/trpc/${surface}.login`, {}, "x".repeat(1_100_000));
          assertEquals(huge.status, 413, huge.text.slice(0, 200));
          assertEquals(huge.headers.get("x-ratelimit-remaining"), "7");
          // The REST door reads the same text/plain body as JSON, counted in the same limit.
          const rest = await attempt(`/api/${surface}/login`, { "content-type": "text/plain" });
          assertEquals([rest.status, rest.headers.get("x-ratelimit-remaining")], [401, "6"]);
          const json = await attempt(`/trpc/${surface}.login`, {});
          assertEquals(json.status, 401, json.text);
          assertEquals(json.headers.get("x-ratelimit-remaining"), "5");
        }
      },
    );

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
