/**
 * The monthly message quota on POST /api/v1/chatbots/{key}/messages: taken
 * atomically (concurrent requests cannot both take the last message), 429
 * with Retry-After when exhausted, nothing stored for a refused message, and
 * a fresh allowance when the month turns.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";

const owner = T.acme.owner.api;
const PATH = "/api/v1/chatbots/acme-helper/messages";
const LIMIT = 5;

Deno.test("v1 monthly quota", serverTestOptions, async (t) => {
  const fake = startFakeAi({ latencyMs: 20 });
  const s = await startTestServer({
    seed: standardSeed({ monthlyLimit: LIMIT }),
    env: { AI_BASE_URL: fake.baseUrl },
  });
  const send = (visitor: string) =>
    http(s.url, "POST", PATH, { token: owner, body: { message: "hi", visitor_id: visitor } });
  const total = async () =>
    (await http(s.url, "GET", "/api/v1/chatbots/acme-helper/conversations", { token: owner }))
      .body.total;
  try {
    await t.step("messages under the limit are answered", async () => {
      for (let i = 0; i < LIMIT - 1; i++) assertEquals((await send(`q${i}`)).status, 200);
    });

    await t.step("eight concurrent requests for the last message: exactly one wins", async () => {
      const calls = fake.requests.length;
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => send(`race${i}`)));
      assertEquals(fake.requests.length - calls, 1, "a refused message reached the provider");
      const statuses = results.map((r) => r.status).sort();
      assertEquals(statuses, [200, 429, 429, 429, 429, 429, 429, 429]);
      const refused = results.find((r) => r.status === 429)!;
      assertMatch(refused.body.message, /monthly message limit/);
      assertOk(Number(refused.headers.get("retry-after")) > 0);
      assertEquals(await total(), LIMIT, "a refused message stores no conversation");
    });

    await t.step(
      "an exhausted quota refuses further messages, also in existing conversations",
      async () => {
        const list = await http(s.url, "GET", "/api/v1/chatbots/acme-helper/conversations", {
          token: owner,
        });
        const id = list.body.data[0].public_id;
        const r = await http(s.url, "POST", PATH, {
          token: owner,
          body: { message: "again", visitor_id: "x", conversation_id: id },
        });
        assertEquals(r.status, 429);
        const thread = await http(s.url, "GET", `/api/v1/conversations/${id}`, { token: owner });
        assertEquals(thread.body.data.messages.length, 2);
      },
    );

    await t.step("the next calendar month (UTC) starts a fresh allowance", async () => {
      const now = new Date();
      const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 0, 5));
      if (next.getTime() - now.getTime() > 29 * 86_400_000) return; // seeded tokens would expire
      const realClock = s.deps.clock;
      s.deps.clock = () => next;
      try {
        assertEquals((await send("new-month")).status, 200);
      } finally {
        s.deps.clock = realClock;
      }
    });
  } finally {
    await s.stop();
    await fake.close();
  }
});
