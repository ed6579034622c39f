/**
 * Portal bots, provider keys, analytics and the embed snippet: shapes, the
 * branding merge, permissions, workspace isolation and validation.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";

const s = await startTestServer({ seed: standardSeed() });
// Globex's portal token is used to prove isolation; a portal token needs the portal enabled.
await s.deps.sql`UPDATE workspaces SET portal_enabled = true WHERE slug = 'globex'`;
const owner: string = T.acme.owner.portal;
const get = (path: string, token = owner) => http(s.url, "GET", path, { token });
const put = (path: string, body: unknown, token = owner) =>
  http(s.url, "PUT", path, { token, body });

Deno.test("portal chatbots", serverTestOptions, async (t) => {
  await t.step("the list holds the portal item fields of the workspace's bots only", async () => {
    const r = await get("/api/portal/chatbots");
    assertEquals(r.status, 200);
    assertEquals(r.body.data.map((b: { public_key: string }) => b.public_key), [
      "acme-helper",
      "acme-sleeper",
    ]);
    assertEquals(Object.keys(r.body.data[0]).sort(), [
      "conversations",
      "is_active",
      "knowledge_sources",
      "model",
      "name",
      "provider",
      "public_key",
      "role",
    ]);
    assertEquals(r.body.data[0].knowledge_sources, 2);
  });

  await t.step(
    "the detail adds persona, instructions, welcome message and full branding",
    async () => {
      const r = await get("/api/portal/chatbots/acme-helper");
      assertEquals(r.status, 200);
      assertEquals(r.body.data.welcome_message, "Hello from Acme!");
      assertEquals(r.body.data.branding.primary_color, "#ff6600");
      assertEquals(r.body.data.branding.layout, "classic");
      assertEquals(r.body.data.branding.proactive.frequency, "session");
    },
  );

  await t.step("another workspace's bot is 404", async () => {
    assertEquals((await get("/api/portal/chatbots/globex-bot")).status, 404);
    assertEquals((await put("/api/portal/chatbots/globex-bot", { name: "x" })).status, 404);
    assertEquals((await get("/api/portal/chatbots/nope")).status, 404);
  });

  await t.step("sending only primary_color changes nothing else in the branding", async () => {
    const r = await put("/api/portal/chatbots/acme-helper", {
      name: "Acme Helper",
      primary_color: "#123456",
    });
    assertEquals(r.status, 200);
    assertEquals(r.body.data.branding, {
      primary_color: "#123456",
      launcher_text: "Chat with us",
      position: "right",
      theme: "ocean",
    });
    const full = (await get("/api/portal/chatbots/acme-helper")).body.data;
    assertEquals(full.branding.title, "Acme Support");
    assertEquals(full.branding.theme, "ocean");
    assertEquals(full.persona, "You are Acme's cheerful support assistant.");
    assertEquals(full.welcome_message, "Hello from Acme!");
    assertEquals(full.is_active, true);
  });

  await t.step("concurrent updates of different branding fields both survive", async () => {
    await Promise.all([
      put("/api/portal/chatbots/acme-helper", { name: "Acme Helper", launcher_text: "Talk" }),
      put("/api/portal/chatbots/acme-helper", { name: "Acme Helper", position: "left" }),
    ]);
    const b = (await get("/api/portal/chatbots/acme-helper")).body.data.branding;
    assertEquals([b.launcher_text, b.position, b.primary_color], ["Talk", "left", "#123456"]);
  });

  await t.step("an update writes every field sent and returns the reduced branding", async () => {
    const r = await put("/api/portal/chatbots/acme-sleeper", {
      name: "Sleeper Renamed",
      persona: "Calm.",
      instructions: "Be brief.",
      welcome_message: "Welcome!",
      is_active: true,
      launcher_text: "Ask us",
      position: "left",
      theme: "midnight",
    });
    assertEquals(r.status, 200);
    const d = r.body.data;
    assertEquals(d.name, "Sleeper Renamed");
    assertEquals(d.persona, "Calm.");
    assertEquals(d.instructions, "Be brief.");
    assertEquals(d.welcome_message, "Welcome!");
    assertEquals(d.is_active, true);
    assertEquals(d.branding.position, "left");
    assertEquals(d.branding.theme, "midnight");
    assertEquals(d.branding.launcher_text, "Ask us");
    assertEquals(Object.keys(d.branding).length, 4);
    assertEquals(d.provider, "provider_1");
  });

  await t.step("an empty welcome message restores the default", async () => {
    const r = await put("/api/portal/chatbots/acme-sleeper", {
      name: "Sleeper Renamed",
      welcome_message: "",
    });
    assertEquals(r.status, 200);
    assertEquals(r.body.data.welcome_message, "Hi there! How can I help you today?");
    // Omitting is_active keeps the current setting.
    assertEquals(r.body.data.is_active, true);
  });

  await t.step("name is required on every call and limits are enforced per field", async () => {
    const r = await put("/api/portal/chatbots/acme-helper", { primary_color: "#000" });
    assertEquals(r.status, 422);
    assertOk(r.body.errors.name);
    const bad = await put("/api/portal/chatbots/acme-helper", {
      name: "x".repeat(121),
      persona: "p".repeat(2001),
      instructions: "i".repeat(4001),
      welcome_message: "w".repeat(301),
      primary_color: "red",
      launcher_text: "l".repeat(41),
      position: "middle",
      theme: "neon",
      is_active: "yes",
    });
    assertEquals(bad.status, 422);
    assertEquals(Object.keys(bad.body.errors).sort(), [
      "instructions",
      "is_active",
      "launcher_text",
      "name",
      "persona",
      "position",
      "primary_color",
      "theme",
      "welcome_message",
    ]);
    assertEquals(bad.body.errors.primary_color, [
      "The primary color field must be a hex colour such as #4f46e5.",
    ]);
  });

  await t.step("provider and model cannot be changed", async () => {
    const r = await put("/api/portal/chatbots/acme-helper", {
      name: "Acme Helper",
      provider: "provider_2",
      model: "other-model",
    });
    assertEquals(r.status, 422);
    assertOk(r.body.errors.provider);
    assertOk(r.body.errors.model);
    const same = await put("/api/portal/chatbots/acme-helper", {
      name: "Acme Helper",
      provider: "provider_1",
    });
    assertEquals(same.status, 200);
  });

  await t.step("updating needs manage-chatbots: an agent's portal token gets 403", async () => {
    const r = await put("/api/portal/chatbots/acme-helper", { name: "x" }, T.acme.agent.portal);
    assertEquals(r.status, 403);
    assertEquals((await get("/api/portal/chatbots", T.acme.agent.portal)).status, 200);
  });
});

Deno.test("portal provider keys", serverTestOptions, async (t) => {
  await t.step(
    "the list has all eight providers with label, last four and configured",
    async () => {
      const r = await get("/api/portal/keys");
      assertEquals(r.status, 200);
      assertEquals(r.body.data.length, 8);
      assertEquals(
        r.body.data.map((k: { provider: string }) => k.provider),
        Array.from({ length: 8 }, (_, i) => `provider_${i + 1}`),
      );
      assertEquals(r.body.data[0], {
        provider: "provider_1",
        label: "OpenAI",
        last_four: "1234",
        configured: true,
      });
      assertEquals(r.body.data[1].configured, false);
      assertEquals(r.body.data[1].last_four, null);
      assertOk(!r.text.includes("sk-acme"));
    },
  );

  await t.step("a stored key is encrypted at rest and never returned", async () => {
    const r = await put("/api/portal/keys/provider_3", { api_key: "  gm-secret-key-9876 " });
    assertEquals(r.status, 200);
    assertEquals(r.body, { data: { provider: "provider_3", last_four: "9876", configured: true } });
    const [row] = await s.deps.sql<{ ciphertext: string }[]>`
      SELECT ciphertext FROM provider_keys WHERE provider = 'provider_3'`;
    assertOk(row && !row.ciphertext.includes("gm-secret"));
    const list = await get("/api/portal/keys");
    assertOk(!list.text.includes("gm-secret"));
    assertEquals(list.body.data[2].last_four, "9876");
  });

  await t.step("an unknown provider code is 422 on put and delete", async () => {
    const p = await put("/api/portal/keys/provider_9", { api_key: "abc" });
    assertEquals(p.status, 422);
    assertOk(p.body.errors.provider);
    const both = await put("/api/portal/keys/provider_0", {});
    assertEquals(Object.keys(both.body.errors).sort(), ["api_key", "provider"]);
    const d = await http(s.url, "DELETE", "/api/portal/keys/openai", { token: owner });
    assertEquals(d.status, 422);
    assertOk(d.body.errors.provider);
  });

  await t.step("api_key is required and at most 300 characters", async () => {
    assertOk((await put("/api/portal/keys/provider_2", {})).body.errors.api_key);
    assertOk((await put("/api/portal/keys/provider_2", { api_key: "   " })).body.errors.api_key);
    const long = await put("/api/portal/keys/provider_2", { api_key: "k".repeat(301) });
    assertEquals(long.status, 422);
    assertOk(long.body.errors.api_key);
  });

  await t.step("delete is idempotent, with a message saying when no key was stored", async () => {
    const first = await http(s.url, "DELETE", "/api/portal/keys/provider_3", { token: owner });
    assertEquals(first.status, 200);
    const again = await http(s.url, "DELETE", "/api/portal/keys/provider_3", { token: owner });
    assertEquals(again.status, 200);
    assertOk(first.body.message !== again.body.message);
    assertOk(/no .*key was stored/i.test(again.body.message));
    assertEquals((await get("/api/portal/keys")).body.data[2].configured, false);
  });

  await t.step("keys need manage-workspace and stay in their workspace", async () => {
    const r = await put("/api/portal/keys/provider_2", { api_key: "abcd" }, T.acme.agent.portal);
    assertEquals(r.status, 403);
    const globex = await get("/api/portal/keys", T.globex.owner.portal);
    assertEquals(globex.body.data[0].configured, false);
  });
});

Deno.test("portal analytics and snippet", serverTestOptions, async (t) => {
  await t.step(
    "analytics counts this month's conversations, messages, tokens and cost",
    async () => {
      const sql = s.deps.sql;
      const [ws] = await sql<{ id: number }[]>`SELECT id FROM workspaces WHERE slug = 'acme'`;
      const [bot] = await sql<
        { id: number }[]
      >`SELECT id FROM chatbots WHERE public_key = 'acme-helper'`;
      const [conv] = await sql<{ id: number }[]>`
      INSERT INTO conversations (workspace_id, chatbot_id, visitor_id)
      VALUES (${ws!.id}, ${bot!.id}, 'v-analytics') RETURNING id`;
      const [old] = await sql<{ id: number }[]>`
      INSERT INTO conversations (workspace_id, chatbot_id, visitor_id, created_at)
      VALUES (${ws!.id}, ${bot!.id}, 'v-old', now() - interval '70 days') RETURNING id`;
      await sql`
      INSERT INTO messages (workspace_id, conversation_id, role, content, tokens_in, tokens_out, cost_micro_cents)
      VALUES (${ws!.id}, ${conv!.id}, 'visitor', 'hi', 0, 0, 0),
             (${ws!.id}, ${conv!.id}, 'assistant', 'hello', 100, 20, 150000000),
             (${ws!.id}, ${conv!.id}, 'assistant', 'more', 30, 10, 25000000),
             (${ws!.id}, ${conv!.id}, 'agent', 'human here', 0, 0, 0)`;
      await sql`
      INSERT INTO messages (workspace_id, conversation_id, role, content, tokens_in, cost_micro_cents, created_at)
      VALUES (${ws!.id}, ${
        old!.id
      }, 'assistant', 'old', 999, 999999999, now() - interval '70 days')`;
      const before = (await get("/api/portal/analytics")).body.data;
      const r = await get("/api/portal/analytics");
      assertEquals(r.status, 200);
      const d = r.body.data;
      assertEquals(d, before);
      assertEquals(d.period, "month");
      const now = new Date();
      assertEquals(
        d.since,
        new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
      );
      assertEquals(d.messages.ai_replies >= 2, true);
      assertEquals(d.messages.human_replies >= 1, true);
      assertEquals(
        d.messages.total,
        d.messages.ai_replies + d.messages.human_replies + d.messages.visitor_messages,
      );
      assertEquals(d.tokens >= 160, true);
      assertEquals(d.cost, 1.75);
      assertEquals(typeof d.messages_used, "number");
      assertOk(d.conversations >= 1);
      // Globex sees none of it.
      const g = (await get("/api/portal/analytics", T.globex.owner.portal)).body.data;
      assertEquals(g.cost, 0);
      assertEquals(g.messages.total, 0);
    },
  );

  await t.step(
    "the snippet loads widget.js with the first active bot's key, deferred",
    async () => {
      const r = await get("/api/portal/widget-snippet");
      assertEquals(r.status, 200);
      assertEquals(r.body.data.public_key, "acme-helper");
      assertEquals(
        r.body.data.snippet,
        `<script src="${s.deps.config.baseUrl}/widget.js" data-key="acme-helper" defer></script>`,
      );
    },
  );

  await t.step("with no active bot the snippet uses the newest bot", async () => {
    await s.deps.sql`UPDATE chatbots SET is_active = false
                      WHERE workspace_id = (SELECT id FROM workspaces WHERE slug = 'acme')`;
    const r = await get("/api/portal/widget-snippet");
    assertEquals(r.body.data.public_key, "acme-sleeper");
    await s.deps.sql`UPDATE chatbots SET is_active = true WHERE public_key = 'acme-helper'`;
  });

  await t.step("a workspace without a bot gets 404", async () => {
    await s.deps.sql`DELETE FROM chatbots WHERE public_key = 'globex-bot'`;
    const r = await get("/api/portal/widget-snippet", T.globex.owner.portal);
    assertEquals(r.status, 404);
    assertEquals(typeof r.body.message, "string");
  });
});

Deno.test(
  "the OpenAPI document lists the fourteen portal endpoints, and our catalogue, webhook, report and file upload ones",
  serverTestOptions,
  async () => {
    const r = await http(s.url, "GET", "/api/openapi.json");
    assertEquals(r.status, 200);
    const ops = Object.entries(r.body.paths as Record<string, Record<string, unknown>>)
      .filter(([path]) => path.startsWith("/api/portal/"))
      .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    // The catalogue of the linked store, the outbound webhooks, the reports, the
    // login's two-factor step and a website's sync (docs/portal-api.md, docs/accounts.md)
    // are ours, beyond the spec's fourteen.
    const ours = (op: string) =>
      op.includes(" /api/portal/catalogue") || op.includes(" /api/portal/webhooks") ||
      op === "GET /api/portal/reports" || op.includes(" /api/portal/login/two-factor") ||
      /\/knowledge\/\{source\}\/(sync|schedule)$/.test(op) ||
      op === "POST /api/portal/chatbots/{key}/knowledge/files";
    assertEquals(ops.filter((op) => !ours(op)).length, 14, ops.join(", "));
    assertOk(ops.includes("POST /api/portal/catalogue/sync"));
    assertOk(ops.includes("POST /api/portal/webhooks/{id}/rotate-secret"), ops.join(", "));
    assertOk(ops.includes("GET /api/portal/reports"), ops.join(", "));
    assertOk(ops.includes("POST /api/portal/chatbots/{key}/knowledge/{source}/sync"));
    assertOk(ops.includes("PUT /api/portal/chatbots/{key}/knowledge/{source}/schedule"));
    assertOk(ops.includes("POST /api/portal/chatbots/{key}/knowledge/files"), ops.join(", "));
  },
);

Deno.test("stop the resources test server", serverTestOptions, async () => {
  await s.stop();
});
