/**
 * The dashboard's bots over HTTP: each role, validation naming the field,
 * another workspace's bot (404), the plan's bot limit, provider and model
 * editable here (not on the portal), branding merged as the portal merges
 * it, and delete taking the bot's conversations and knowledge with it.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { D, dashboardSeed, ROLES } from "./dashboard_seed.ts";

const s = await startTestServer({ seed: dashboardSeed() });
const call = (method: string, path: string, token: string, body?: unknown) =>
  http(s.url, method, `/api/dashboard${path}`, { token, body });

Deno.test("dashboard bots", serverTestOptions, async (t) => {
  await t.step("owner, administrator and viewer list and read bots; an agent cannot", async () => {
    for (const [role, token] of ROLES) {
      const list = await call("GET", "/chatbots", token);
      assertEquals(list.status, role === "agent" ? 403 : 200, role);
      const one = await call("GET", "/chatbots/acme-helper", token);
      assertEquals(one.status, role === "agent" ? 403 : 200, role);
    }
    const one = await call("GET", "/chatbots/acme-helper", D.acme.viewer);
    assertEquals(one.body.data.branding.primary_color, "#ff6600");
    assertEquals(one.body.data.language, "english");
    assertOk(one.body.data.snippet.includes('data-key="acme-helper"'), one.body.data.snippet);
  });

  await t.step("another workspace's bot is 404 for every verb", async () => {
    assertEquals((await call("GET", "/chatbots/globex-bot", D.acme.owner)).status, 404);
    assertEquals(
      (await call("PUT", "/chatbots/globex-bot", D.acme.owner, { name: "Mine" })).status,
      404,
    );
    assertEquals((await call("DELETE", "/chatbots/globex-bot", D.acme.owner)).status, 404);
    assertEquals((await call("GET", "/chatbots/globex-bot", D.globex.owner)).status, 200);
  });

  await t.step("a viewer can change nothing (403), an agent nothing either", async () => {
    for (const token of [D.acme.viewer, D.acme.agent]) {
      assertEquals((await call("POST", "/chatbots", token, { name: "X" })).status, 403);
      assertEquals(
        (await call("PUT", "/chatbots/acme-helper", token, { name: "X" })).status,
        403,
      );
      assertEquals((await call("DELETE", "/chatbots/acme-sleeper", token)).status, 403);
    }
  });

  await t.step("validation is a 422 naming each field", async () => {
    const r = await call("POST", "/chatbots", D.acme.owner, {
      name: "",
      provider: "provider_9",
      language: "klingon",
      persona: "p".repeat(2001),
    });
    assertEquals(r.status, 422);
    for (const f of ["name", "provider", "language", "persona"]) {
      assertOk(r.body.errors[f], `${f}: ${JSON.stringify(r.body.errors)}`);
    }
    const u = await call("PUT", "/chatbots/acme-helper", D.acme.owner, {
      name: "Acme Helper",
      branding: { primary_color: "orange", proactive: { delay: -1 }, layout: "sideways" },
    });
    assertEquals(u.status, 422);
    assertOk(u.body.errors["branding.primary_color"], JSON.stringify(u.body.errors));
    assertOk(u.body.errors["branding.proactive.delay"], JSON.stringify(u.body.errors));
    assertOk(u.body.errors["branding.layout"], JSON.stringify(u.body.errors));
  });

  let created = "";
  await t.step(
    "an administrator creates bots up to the plan's limit, then a clear 422",
    async () => {
      // The test plan allows 5; acme has 2.
      for (let i = 0; i < 3; i++) {
        const r = await call("POST", "/chatbots", D.acme.administrator, {
          name: `Helper ${i}`,
          provider: "provider_2",
          model: "claude-3-5-haiku",
          persona: "Calm.",
          instructions: "Be brief.",
          welcome_message: "Hi!",
          language: "german",
        });
        assertEquals(r.status, 201, r.text);
        assertEquals(r.body.data.provider, "provider_2");
        assertEquals(r.body.data.language, "german");
        assertEquals(r.body.data.welcome_message, "Hi!");
        created = r.body.data.public_key;
      }
      const over = await call("POST", "/chatbots", D.acme.owner, { name: "One too many" });
      assertEquals(over.status, 422);
      assertOk(/allows 5 bots/.test(over.body.errors.name[0]), over.text);
      assertEquals((await call("GET", "/chatbots", D.acme.owner)).body.data.length, 5);
    },
  );

  await t.step("provider and model change here; the portal still refuses them", async () => {
    const r = await call("PUT", `/chatbots/${created}`, D.acme.owner, {
      name: "Renamed",
      provider: "provider_1",
      model: "gpt-4o",
      is_active: false,
    });
    assertEquals(r.status, 200, r.text);
    assertEquals([r.body.data.provider, r.body.data.model, r.body.data.is_active], [
      "provider_1",
      "gpt-4o",
      false,
    ]);
    const portal = await http(s.url, "PUT", "/api/portal/chatbots/acme-helper", {
      token: T.acme.owner.portal,
      body: { name: "Acme Helper", model: "gpt-4o" },
    });
    assertEquals(portal.status, 422);
    assertOk(portal.body.errors.model);
  });

  await t.step("branding merges: fields left out keep their value", async () => {
    const r = await call("PUT", "/chatbots/acme-helper", D.acme.owner, {
      name: "Acme Helper",
      branding: { theme: "midnight", quick_replies: ["Track my order"], proactive: { delay: 5 } },
    });
    assertEquals(r.status, 200, r.text);
    const b = r.body.data.branding;
    assertEquals(b.theme, "midnight");
    assertEquals(b.primary_color, "#ff6600"); // kept
    assertEquals(b.title, "Acme Support"); // kept
    assertEquals(b.quick_replies, ["Track my order"]);
    assertEquals(b.proactive.delay, 5);
    assertEquals(b.proactive.frequency, "session"); // kept inside the nested object
    // The widget serves what was saved.
    const cfg = await http(s.url, "GET", "/widget/acme-helper/config");
    assertEquals(cfg.body.data.branding.theme, "midnight");
    assertEquals(cfg.body.data.branding.quick_replies, ["Track my order"]);
  });

  await t.step(
    "the pre-chat form is saved whole and reaches the widget; bad fields are named",
    async () => {
      const bad = await call("PUT", "/chatbots/acme-helper", D.acme.owner, {
        name: "Acme Helper",
        branding: { prechat: { enabled: true, fields: [{ name: "age" }] } },
      });
      assertEquals(bad.status, 422);
      assertOk(bad.body.errors["branding.prechat.fields.0.name"], JSON.stringify(bad.body.errors));
      const twice = await call("PUT", "/chatbots/acme-helper", D.acme.owner, {
        name: "Acme Helper",
        branding: { prechat: { enabled: true, fields: [{ name: "email" }, { name: "email" }] } },
      });
      assertEquals(twice.status, 422);
      assertOk(twice.body.errors["branding.prechat.fields"], JSON.stringify(twice.body.errors));
      const ok = await call("PUT", "/chatbots/acme-helper", D.acme.administrator, {
        name: "Acme Helper",
        branding: {
          primary_color: "#0f766e",
          prechat: {
            enabled: true,
            fields: [{ name: "email", label: "Work e-mail", required: true }],
          },
        },
      });
      assertEquals(ok.status, 200, JSON.stringify(ok.body));
      assertEquals(ok.body.data.prechat, {
        enabled: true,
        fields: [{ name: "email", label: "Work e-mail", type: "email", required: true }],
      });
      const widget = await http(s.url, "GET", "/widget/acme-helper/config", {});
      assertEquals(widget.body.data.prechat.fields[0].label, "Work e-mail");
      assertEquals(widget.body.data.branding.primary_color, "#0f766e");
      // Another branding field later leaves the pre-chat form as it was.
      await call("PUT", "/chatbots/acme-helper", D.acme.owner, {
        name: "Acme Helper",
        branding: { title: "Help" },
      });
      const again = await call("GET", "/chatbots/acme-helper", D.acme.viewer);
      assertEquals(again.body.data.prechat.enabled, true);
      assertEquals(
        (await call("PUT", "/chatbots/acme-helper", D.acme.viewer, {
          name: "X",
          branding: { prechat: { enabled: false, fields: [] } },
        })).status,
        403,
      );
    },
  );

  await t.step("delete takes the bot's conversations and knowledge with it", async () => {
    const [bot] = await s.deps.sql<{ id: number }[]>`
      SELECT id FROM chatbots WHERE public_key = 'acme-sleeper'`;
    await s.deps.sql`INSERT INTO conversations (workspace_id, chatbot_id, visitor_id)
      SELECT workspace_id, id, 'v1' FROM chatbots WHERE id = ${bot!.id}`;
    const added = await call("POST", "/chatbots/acme-sleeper/knowledge", D.acme.owner, {
      type: "text",
      content: "Sleeper facts.",
    });
    assertOk(added.status === 201 || added.status === 404, added.text);
    assertEquals((await call("DELETE", "/chatbots/acme-sleeper", D.acme.owner)).status, 200);
    assertEquals((await call("GET", "/chatbots/acme-sleeper", D.acme.owner)).status, 404);
    const [left] = await s.deps.sql<{ c: number; k: number }[]>`
      SELECT (SELECT count(*)::int FROM conversations WHERE chatbot_id = ${bot!.id}) AS c,
             (SELECT count(*)::int FROM knowledge_sources WHERE chatbot_id = ${bot!.id}) AS k`;
    assertEquals(left, { c: 0, k: 0 });
    const k = await call("GET", "/chatbots", D.acme.owner);
    assertEquals(k.body.data.length, 4);
    // A place is free again.
    assertEquals((await call("POST", "/chatbots", D.acme.owner, { name: "Back" })).status, 201);
  });
});

Deno.test("stop the dashboard bots test server", serverTestOptions, async () => {
  await s.stop();
});
