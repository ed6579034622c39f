/**
 * A visitor without a name is named by their id: a short id whole
 * (`api-visitor-1` is "Visitor api-visitor-1", not "Visitor itor-1"), a long
 * generated one by its last six characters; in the inbox list and the open
 * conversation alike.
 */
import { assertEquals } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";

Deno.test("a short visitor id is shown whole", serverTestOptions, async () => {
  const fake = startFakeAi({ reply: "Hi." });
  const s = await startTestServer({
    seed: standardSeed(),
    env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
  });
  try {
    const long = "3f0c9a7e-5b1d-4c2e-9f8a-12ab34cd56ef";
    for (const visitor of ["api-visitor-1", long]) {
      const r = await postStream(s.url, "acme-helper", { visitor_id: visitor, message: "Hello" });
      assertEquals(r.status, 200);
    }
    const inbox = await http(s.url, "GET", "/api/agent/inbox?filter=all", {
      token: T.acme.agent.agent,
    });
    assertEquals(inbox.status, 200);
    const names = (inbox.body.conversations as { visitor: string }[]).map((c) => c.visitor)
      .sort();
    assertEquals(names, [`Visitor ${long.slice(-6)}`, "Visitor api-visitor-1"].sort());
  } finally {
    await s.stop();
    await fake.close();
  }
});
