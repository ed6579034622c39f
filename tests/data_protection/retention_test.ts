/**
 * Retention (docs/data-protection.md#retention): off by default; 30 days to
 * 10 years, set by an owner; the background run deletes resolved
 * conversations quiet for longer (with their messages) and visitors left with
 * no conversation, in batches, and records each run in the audit log. Open
 * conversations and other workspaces stay. Time moves by the injectable clock.
 */
import { assertEquals, assertOk as assert } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { PASSWORD, standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { waitUntil } from "../helpers/wait.ts";

const fake = startFakeAi({ reply: "Happy to help." });
const s = await startTestServer({
  seed: standardSeed(),
  env: {
    ...WIDGET_ENV,
    AI_BASE_URL: fake.baseUrl,
    RETENTION_INTERVAL_SECONDS: "1",
    RETENTION_BATCH_SIZE: "2",
  },
});

async function login(email: string): Promise<string> {
  const r = await http(s.url, "POST", "/api/dashboard/login", {
    body: { email, password: PASSWORD },
  });
  assertEquals(r.status, 200, r.text);
  return r.body.token as string;
}

async function conversation(key: string, visitor: string, resolve: boolean, token: string) {
  const r = await postStream(s.url, key, { visitor_id: visitor, message: "Hello there" });
  assertEquals(r.status, 200, r.text);
  const id = r.events[0]!.data.conversation_id as string;
  if (resolve) {
    const done = await http(s.url, "POST", `/api/agent/conversations/${id}/resolve`, {
      token,
      body: {},
    });
    assertEquals(done.status, 200, done.text);
  }
  return id;
}

/** Read in the database: 31 days on, the seeded tokens have expired. */
const exists = async (id: string, _token: string) =>
  (await s.deps.sql`SELECT 1 FROM conversations WHERE public_id = ${id}::uuid`).length === 1;

Deno.test(
  "retention deletes what is older than the workspace keeps",
  serverTestOptions,
  async (t) => {
    const realClock = s.deps.clock;
    try {
      const owner = await login("owner@acme.test");
      const viewer = await login("viewer@acme.test");

      await t.step("off by default; 30 days to 10 years; owners and administrators", async () => {
        const r = await http(s.url, "GET", "/api/dashboard/retention", { token: viewer });
        assertEquals([r.status, r.body.data], [200, { retention_days: null }]);
        const put = (days: unknown, token = owner) =>
          http(s.url, "PUT", "/api/dashboard/retention", { token, body: { retention_days: days } });
        assertEquals((await put(30, viewer)).status, 403);
        for (const bad of [29, 3651, 45.5]) {
          const refused = await put(bad);
          assertEquals([refused.status, Object.keys(refused.body.errors ?? {})], [
            422,
            ["retention_days"],
          ]);
        }
      });

      const agentToken = T.acme.owner.agent;
      const old = [
        await conversation("acme-helper", "v_ret_1", true, agentToken),
        await conversation("acme-helper", "v_ret_2", true, agentToken),
        await conversation("acme-helper", "v_ret_3", true, agentToken),
      ];
      const open = await conversation("acme-helper", "v_ret_open", false, agentToken);
      const globex = await conversation("globex-bot", "v_ret_g", true, T.globex.owner.agent);
      // Seen by the widget: one only browsed, one has the open conversation.
      for (const visitor of ["v_ret_browsing", "v_ret_open"]) {
        const hb = await http(s.url, "POST", "/widget/acme-helper/heartbeat", {
          body: { visitor_id: visitor, chat_open: false, page_url: "https://acme.test/" },
          headers: freshIp(),
        });
        assertEquals(hb.status, 200, hb.text);
      }
      const usage = await s.deps.sql`SELECT * FROM usage_counters ORDER BY workspace_id`;

      await t.step("set to 30 days: nothing younger is touched", async () => {
        const put = await http(s.url, "PUT", "/api/dashboard/retention", {
          token: owner,
          body: { retention_days: 30 },
        });
        assertEquals([put.status, put.body.data], [200, { retention_days: 30 }]);
        await waitUntil(
          async () =>
            (await s.deps.sql`SELECT 1 FROM audit_log WHERE action = 'retention.run'`).length > 0,
          "a first retention run",
          15_000,
        );
        for (const id of old) assert(await exists(id, T.acme.owner.api), id);
      });

      await t.step("31 days later: resolved conversations and idle visitors are gone", async () => {
        const later = new Date(realClock().getTime() + 31 * 86_400_000);
        s.deps.clock = () => later;
        await waitUntil(async () => !(await exists(old[2]!, T.acme.owner.api)), "deletion", 15_000);
        await waitUntil(
          async () =>
            (await s.deps.sql`SELECT 1 FROM audit_log WHERE action = 'retention.run'
                           AND (details ->> 'conversations')::int > 0`).length > 0,
          "the run's audit row",
          15_000,
        );
        for (const id of old) assert(!(await exists(id, T.acme.owner.api)), id);
        assert(await exists(open, T.acme.owner.api), "the open conversation stays");
        assert(await exists(globex, T.globex.owner.api), "another workspace's stays");
        const left = await s.deps.sql`
        SELECT visitor_id FROM visitors WHERE visitor_id LIKE 'v_ret_%' ORDER BY 1`;
        assertEquals(left.map((r) => r.visitor_id), ["v_ret_open"]);
        const messages = await s.deps.sql`
        SELECT count(*)::int AS n FROM messages m JOIN conversations c ON c.id = m.conversation_id
         WHERE c.public_id = ANY(${old}::uuid[])`;
        assertEquals(messages[0]!.n, 0);
        const [run] = await s.deps.sql<{ details: Record<string, number> }[]>`
        SELECT details FROM audit_log WHERE action = 'retention.run'
         AND (details ->> 'conversations')::int > 0 ORDER BY id LIMIT 1`;
        // Batches of two: three conversations need two transactions.
        assertEquals(run!.details.conversations, 3);
        assert(Number(run!.details.batches) >= 2, JSON.stringify(run!.details));
        assert(Number(run!.details.messages) >= 6, JSON.stringify(run!.details));
        // The month's usage stays.
        assertEquals(await s.deps.sql`SELECT * FROM usage_counters ORDER BY workspace_id`, usage);
      });
    } finally {
      s.deps.clock = realClock;
      await s.stop();
      await fake.close();
    }
  },
);
