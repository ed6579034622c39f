/**
 * The v1 read endpoints: me, bots, a bot, its conversation paginator (edges:
 * empty, last page, per_page over 100, links that work), and one
 * conversation; authentication, suspension and workspace scoping.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";

const BASE = "https://support.example.com";
const owner = T.acme.owner.api;
const LIST = "/api/v1/chatbots/acme-helper/conversations";

Deno.test("v1 read endpoints", serverTestOptions, async (t) => {
  const fake = startFakeAi();
  const s = await startTestServer({
    seed: standardSeed(),
    env: { AI_BASE_URL: fake.baseUrl, BASE_URL: BASE },
  });
  const get = (path: string, token: string = owner) => http(s.url, "GET", path, { token });
  /** Follow a link the server built from BASE_URL. */
  const follow = (link: string) => get(link.slice(BASE.length));
  try {
    await t.step("GET /me returns the token's user and company", async () => {
      const r = await get("/api/v1/me");
      assertEquals(r.status, 200);
      assertEquals(Object.keys(r.body.user).sort(), ["email", "id", "name", "role"]);
      assertEquals(r.body.user.email, "owner@acme.test");
      assertEquals(r.body.user.role, "owner");
      assertEquals(Object.keys(r.body.company).sort(), ["id", "name", "plan", "slug"]);
      assertEquals(r.body.company.slug, "acme");
    });

    await t.step(
      "credentials: missing, malformed, expired 401; wrong ability and suspended 403",
      async () => {
        assertEquals((await http(s.url, "GET", "/api/v1/me")).status, 401);
        assertEquals((await get("/api/v1/me", "garbage")).status, 401);
        assertEquals((await get("/api/v1/me", T.acme.expired)).status, 401);
        assertEquals((await get("/api/v1/me", T.acme.owner.portal)).status, 403);
        assertEquals((await get("/api/v1/me", T.acme.owner.agent)).status, 403);
        const ws = await get("/api/v1/me", T.suspendedWorkspace.owner.api);
        assertEquals(ws.status, 403);
        assertEquals(typeof ws.body.message, "string");
        assertEquals((await get("/api/v1/chatbots", T.suspendedWorkspace.owner.api)).status, 403);
        assertEquals((await get("/api/v1/me", T.acme.suspendedUser)).status, 403);
        for (const path of [LIST, `/api/v1/conversations/${crypto.randomUUID()}`]) {
          assertEquals((await http(s.url, "GET", path)).status, 401, path);
          assertEquals((await get(path, T.suspendedWorkspace.owner.api)).status, 403, path);
          assertEquals((await get(path, T.acme.owner.agent)).status, 403, path);
        }
      },
    );

    await t.step("GET /chatbots lists the workspace's bots with the list fields only", async () => {
      const r = await get("/api/v1/chatbots");
      assertEquals(r.status, 200);
      assertEquals(r.body.data.map((b: { public_key: string }) => b.public_key), [
        "acme-helper",
        "acme-sleeper",
      ]);
      assertEquals(Object.keys(r.body.data[0]).sort(), [
        "id",
        "is_active",
        "model",
        "name",
        "provider",
        "public_key",
      ]);
      assertEquals(r.body.data[0].provider, "provider_1");
      assertEquals(r.body.data[1].is_active, false);
    });

    await t.step(
      "GET /chatbots/{key} returns the detail with branding; foreign key 404",
      async () => {
        const r = await get("/api/v1/chatbots/acme-helper");
        assertEquals(r.status, 200);
        assertEquals(Object.keys(r.body.data).sort(), [
          "branding",
          "is_active",
          "knowledge_sources",
          "model",
          "name",
          "provider",
          "public_key",
        ]);
        assertEquals(r.body.data.knowledge_sources, 2);
        assertEquals(r.body.data.branding.primary_color, "#ff6600");
        assertEquals(r.body.data.branding.theme, "ocean");
        const foreign = await get("/api/v1/chatbots/globex-bot");
        assertEquals(foreign.status, 404);
        assertEquals(typeof foreign.body.message, "string");
        assertEquals((await get("/api/v1/chatbots/nope")).status, 404);
      },
    );

    await t.step("an empty conversation list is a valid first and last page", async () => {
      const r = await get("/api/v1/chatbots/acme-sleeper/conversations");
      assertEquals(r.status, 200, r.text);
      const path = `${BASE}/api/v1/chatbots/acme-sleeper/conversations`;
      assertEquals(r.body, {
        current_page: 1,
        data: [],
        first_page_url: `${path}?page=1`,
        from: null,
        last_page: 1,
        last_page_url: `${path}?page=1`,
        next_page_url: null,
        path,
        per_page: 20,
        prev_page_url: null,
        to: null,
        total: 0,
      });
      assertEquals((await get("/api/v1/chatbots/globex-bot/conversations")).status, 404);
    });

    const ids: string[] = [];
    await t.step("arrange: 25 conversations", async () => {
      for (let i = 0; i < 25; i++) {
        const r = await http(s.url, "POST", "/api/v1/chatbots/acme-helper/messages", {
          token: owner,
          body: { message: `Question ${i}`, visitor_id: `visitor-${i}` },
        });
        assertEquals(r.status, 200, r.text);
        ids.push(r.body.conversation_id);
      }
    });

    await t.step("page 1 holds the 20 most recently active, with working links", async () => {
      const r = await get(LIST);
      assertEquals(r.status, 200);
      const path = `${BASE}${LIST}`;
      assertEquals(r.body.path, path);
      assertEquals(r.body.per_page, 20);
      assertEquals(r.body.total, 25);
      assertEquals(r.body.last_page, 2);
      assertEquals([r.body.from, r.body.to], [1, 20]);
      assertEquals(r.body.first_page_url, `${path}?page=1`);
      assertEquals(r.body.last_page_url, `${path}?page=2`);
      assertEquals(r.body.prev_page_url, null);
      assertEquals(r.body.next_page_url, `${path}?page=2`);
      assertEquals(r.body.data[0].public_id, ids[24]);
      assertEquals(Object.keys(r.body.data[0]).sort(), [
        "id",
        "last_message_at",
        "public_id",
        "status",
        "visitor_id",
      ]);
      assertEquals(r.body.data[0].visitor_id, "visitor-24");
      assertEquals(r.body.data[0].status, "bot");
      assertEquals(typeof r.body.data[0].id, "number");
      assertMatch(r.body.data[0].last_message_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      const next = await follow(r.body.next_page_url);
      assertEquals(next.status, 200);
      assertEquals(next.body.current_page, 2);
      assertEquals(next.body.data.length, 5);
      assertEquals([next.body.from, next.body.to], [21, 25]);
      assertEquals(next.body.next_page_url, null);
      assertEquals(next.body.prev_page_url, `${path}?page=1`);
      assertEquals(next.body.data.at(-1).public_id, ids[0]);
      const prev = await follow(next.body.prev_page_url);
      assertEquals(prev.body.data, r.body.data);
    });

    await t.step("per_page is clamped to 100 and kept in the links", async () => {
      const r = await get(`${LIST}?per_page=500`);
      assertEquals(r.status, 200);
      assertEquals(r.body.per_page, 100);
      assertEquals(r.body.data.length, 25);
      assertEquals(r.body.first_page_url, `${BASE}${LIST}?per_page=100&page=1`);
      const small = await get(`${LIST}?per_page=7&page=4`);
      assertEquals(small.body.data.length, 4);
      assertEquals([small.body.from, small.body.to, small.body.last_page], [22, 25, 4]);
      assertEquals(small.body.next_page_url, null);
      const prev = await follow(small.body.prev_page_url);
      assertEquals([prev.body.current_page, prev.body.per_page, prev.body.from], [3, 7, 15]);
    });

    await t.step("a page past the end is empty; a non-integer per_page is 422", async () => {
      const r = await get(`${LIST}?page=9`);
      assertEquals(r.status, 200);
      assertEquals(r.body.data, []);
      assertEquals([r.body.from, r.body.to, r.body.total, r.body.next_page_url], [
        null,
        null,
        25,
        null,
      ]);
      const bad = await get(`${LIST}?per_page=many`);
      assertEquals(bad.status, 422);
      assertOk(Array.isArray(bad.body.errors.per_page));
    });

    await t.step("new activity moves a conversation to the top", async () => {
      const r = await http(s.url, "POST", "/api/v1/chatbots/acme-helper/messages", {
        token: owner,
        body: { message: "Back again", visitor_id: "visitor-0", conversation_id: ids[0] },
      });
      assertEquals(r.status, 200);
      const list = await get(LIST);
      assertEquals(list.body.data[0].public_id, ids[0]);
    });

    await t.step(
      "GET /conversations/{id} returns the thread with microsecond UTC times",
      async () => {
        const r = await get(`/api/v1/conversations/${ids[0]}`);
        assertEquals(r.status, 200, r.text);
        assertEquals(Object.keys(r.body.data).sort(), ["id", "messages", "status", "visitor_id"]);
        assertEquals(r.body.data.id, ids[0]);
        assertEquals(r.body.data.visitor_id, "visitor-0");
        assertEquals(r.body.data.messages.map((m: { role: string }) => m.role), [
          "visitor",
          "assistant",
          "visitor",
          "assistant",
        ]);
        const m = r.body.data.messages[0];
        assertEquals(Object.keys(m).sort(), ["content", "created_at", "id", "role"]);
        assertEquals(m.content, "Question 0");
        assertMatch(m.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      },
    );

    await t.step(
      "another workspace's conversation, an unknown or malformed id is 404",
      async () => {
        assertEquals(
          (await get(`/api/v1/conversations/${ids[0]}`, T.globex.owner.api)).status,
          404,
        );
        assertEquals((await get(`/api/v1/conversations/${crypto.randomUUID()}`)).status, 404);
        assertEquals((await get("/api/v1/conversations/not-a-uuid")).status, 404);
        assertEquals((await get(`/api/v1/conversations/${"a".repeat(100)}`)).status, 404);
      },
    );
  } finally {
    await s.stop();
    await fake.close();
  }
});
