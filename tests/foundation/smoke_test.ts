import { assertEquals } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";

Deno.test("server starts on the seed and answers v1 me", serverTestOptions, async () => {
  const t0 = performance.now();
  const s = await startTestServer({ seed: standardSeed() });
  console.log("start ms", Math.round(performance.now() - t0));
  try {
    const health = await http(s.url, "GET", "/healthz");
    assertEquals(health.status, 200);
    const me = await http(s.url, "GET", "/api/v1/me", { token: T.acme.owner.api });
    assertEquals(me.status, 200);
    assertEquals(me.body.company.slug, "acme");
  } finally {
    await s.stop();
  }
});
