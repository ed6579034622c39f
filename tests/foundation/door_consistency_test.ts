/**
 * The doors (REST, raw routes such as the widget stream, /trpc) apply one
 * rule the same way: a path parameter the database cannot store (a NUL) is a
 * 422 naming it on every door, never a 500; and a limited route counts a
 * malformed body and answers it with the rate-limit headers on the REST door
 * as on /trpc (docs/errors.md).
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { freshIp, WIDGET_ENV } from "../widget/widget_client.ts";

Deno.test("one rule on every door", serverTestOptions, async (t) => {
  const s = await startTestServer({ seed: standardSeed(), env: WIDGET_ENV });
  try {
    await t.step("a NUL in a path parameter is 422 naming it on every door", async () => {
      const answers = [
        await http(s.url, "POST", "/widget/acme%00helper/stream", {
          body: { visitor_id: "v-nul", message: "Hello" },
          headers: { ...freshIp(), accept: "text/event-stream" },
        }),
        await http(s.url, "GET", "/widget/acme%00helper/config", { headers: freshIp() }),
        await http(s.url, "GET", "/api/v1/chatbots/acme%00helper", { token: T.acme.owner.api }),
      ];
      for (const r of answers) {
        assertEquals(r.status, 422, r.text);
        assertEquals(r.body.errors.key, ["The key field must not contain a NUL character."]);
      }
      const input = encodeURIComponent(JSON.stringify({ key: "acme\u0000helper" }));
      const trpc = await http(s.url, "GET", `/trpc/widget.config?input=${input}`, {
        headers: freshIp(),
      });
      assertEquals(trpc.body.error.data.httpStatus, 422, trpc.text);
      assertOk(trpc.body.error.data.errors.key);
    });

    for (const path of ["/api/agent/login", "/api/portal/login"]) {
      await t.step(`${path}: malformed bodies are counted, with the limit's headers`, async () => {
        const ip = freshIp();
        const bodies = ["{", "[1]", "not json", "{", "{", "{", "{", "{", "{", "{"];
        for (const [i, rawBody] of bodies.entries()) {
          const r = await http(s.url, "POST", path, { rawBody, headers: ip });
          assertEquals(r.status, 400, r.text);
          assertEquals(r.headers.get("x-ratelimit-limit"), "10");
          assertEquals(r.headers.get("x-ratelimit-remaining"), String(9 - i));
        }
        // The eleventh, well-formed or not, is over the limit.
        const over = await http(s.url, "POST", path, {
          body: { email: "amy@acme.test", password: "wrong" },
          headers: ip,
        });
        assertEquals(over.status, 429, over.text);
        assertOk(Number(over.headers.get("retry-after")) >= 1);
        // And /trpc counts the same way: same limit, same answer.
        const proc = path === "/api/agent/login" ? "agent.login" : "portal.login";
        const viaTrpc = await http(s.url, "POST", `/trpc/${proc}`, { rawBody: "{", headers: ip });
        assertEquals(viaTrpc.body.error.data.httpStatus, 429, viaTrpc.text);
      });
    }
  } finally {
    await s.stop();
  }
});
