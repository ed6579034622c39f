/**
 * The dashboard's session and overview over HTTP: who may sign in (owner,
 * administrator and viewer of any workspace, portal or not; an agent is told
 * to use the inbox), the token opening /api/dashboard only, refresh and
 * logout, and the overview's usage and 30-day series.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, PASSWORD, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { D, dashboardSeed, ROLES } from "./dashboard_seed.ts";

const fake = startFakeAi({ reply: "Hello back." });
const s = await startTestServer({
  seed: dashboardSeed(),
  env: { TRUSTED_PROXIES: "127.0.0.1", AI_BASE_URL: fake.baseUrl },
});
let ipCounter = 1;
const newIp = () => ({ "x-forwarded-for": `198.51.100.${ipCounter++}` });
const login = (email: string, password: string) =>
  http(s.url, "POST", "/api/dashboard/login", { body: { email, password }, headers: newIp() });

Deno.test("dashboard session", serverTestOptions, async (t) => {
  await t.step("an owner signs in and the token opens the dashboard only", async () => {
    const r = await login(EMAIL.acmeOwner, PASSWORD);
    assertEquals(r.status, 200);
    assertOk(typeof r.body.token === "string" && r.body.token.includes("|"));
    assertEquals(r.body.user.role, "owner");
    assertEquals(r.body.user.role_label, "Owner");
    assertEquals(r.body.company.name, "Acme Inc");
    // Acme has the white-label portal: the app wears its brand, as /api/portal/me gives it.
    const portalMe = await http(s.url, "GET", "/api/portal/me", { token: T.acme.owner.portal });
    assertEquals(r.body.brand, portalMe.body.brand);
    assertEquals(r.body.permissions, ["manage-chatbots", "manage-content", "manage-workspace"]);
    const me = await http(s.url, "GET", "/api/dashboard/me", { token: r.body.token });
    assertEquals(me.status, 200);
    assertEquals(me.body.user.email, EMAIL.acmeOwner);
    for (const path of ["/api/v1/me", "/api/portal/me", "/api/agent/me"]) {
      assertEquals((await http(s.url, "GET", path, { token: r.body.token })).status, 403, path);
    }
  });

  await t.step("an owner of a workspace without the portal signs in, unbranded", async () => {
    const r = await login(EMAIL.globexOwner, PASSWORD);
    assertEquals(r.status, 200);
    assertEquals(r.body.brand, null);
  });

  await t.step("a viewer signs in with no permission; an administrator with all", async () => {
    const viewer = await login(EMAIL.acmeViewer, PASSWORD);
    assertEquals(viewer.status, 200);
    assertEquals(viewer.body.permissions, []);
    const admin = await login(EMAIL.acmeAdmin, PASSWORD);
    assertEquals(admin.status, 200);
    assertEquals(admin.body.permissions.length, 3);
  });

  await t.step("an agent is refused with a message that points to the inbox", async () => {
    const r = await login(EMAIL.acmeAgent, PASSWORD);
    assertEquals(r.status, 403);
    assertOk(/\/inbox/.test(r.body.message), r.body.message);
    // A wrong password, an unknown address and a suspended account stay vague.
    const wrong = await login(EMAIL.acmeAgent, "nope");
    assertEquals(wrong.status, 401);
    assertOk(!/inbox/.test(wrong.body.message));
    const suspended = await login(EMAIL.acmeSuspended, PASSWORD);
    assertEquals(suspended.status, 403);
    assertEquals(suspended.body.message, wrong.body.message);
  });

  await t.step("an agent's dashboard token (made by an operator) opens nothing", async () => {
    const r = await http(s.url, "GET", "/api/dashboard/me", { token: D.acme.agent });
    assertEquals(r.status, 403);
    assertOk(/inbox/.test(r.body.message));
  });

  await t.step("other abilities' tokens do not open the dashboard", async () => {
    for (const token of [T.acme.owner.api, T.acme.owner.portal, T.acme.owner.agent]) {
      assertEquals((await http(s.url, "GET", "/api/dashboard/me", { token })).status, 403);
    }
    assertEquals((await http(s.url, "GET", "/api/dashboard/me")).status, 401);
  });

  await t.step("validation names the field", async () => {
    const r = await http(s.url, "POST", "/api/dashboard/login", {
      body: { email: "not-an-address", password: "" },
      headers: newIp(),
    });
    assertEquals(r.status, 422);
    assertOk(r.body.errors.email && r.body.errors.password, JSON.stringify(r.body));
  });

  await t.step("refresh gives a new token; logout revokes the one used", async () => {
    const r = await login(EMAIL.acmeAdmin, PASSWORD);
    const fresh = await http(s.url, "POST", "/api/dashboard/refresh", { token: r.body.token });
    assertEquals(fresh.status, 200);
    assertOk(fresh.body.token !== r.body.token);
    const out = await http(s.url, "POST", "/api/dashboard/logout", { token: fresh.body.token });
    assertEquals(out.status, 200);
    assertEquals(
      (await http(s.url, "GET", "/api/dashboard/me", { token: fresh.body.token })).status,
      401,
    );
    // The old token still works until it expires (a second tab is not cut off).
    assertEquals(
      (await http(s.url, "GET", "/api/dashboard/me", { token: r.body.token })).status,
      200,
    );
  });
});

Deno.test("dashboard overview", serverTestOptions, async (t) => {
  await t.step("each dashboard role reads it; an agent's token does not", async () => {
    for (const [role, token] of ROLES) {
      const r = await http(s.url, "GET", "/api/dashboard/overview", { token });
      assertEquals(r.status, role === "agent" ? 403 : 200, role);
      const series = await http(s.url, "GET", "/api/dashboard/overview/series", { token });
      assertEquals(series.status, role === "agent" ? 403 : 200, role);
    }
  });

  await t.step("usage stands against the plan's limits", async () => {
    const r = await http(s.url, "GET", "/api/dashboard/overview", { token: D.acme.owner });
    assertEquals(r.body.plan, "Test");
    assertEquals(r.body.usage.message_limit, 1000);
    assertEquals(r.body.usage.chatbots, 2);
    assertEquals(r.body.usage.chatbot_limit, 5);
    assertEquals(r.body.usage.agent_seats, 5);
    assertEquals(r.body.usage.seats, 3); // owner, administrator, agent: not the viewer, not the suspended
    assertEquals(r.body.month.period, "month");
  });

  await t.step("the series has 30 days, today last, and counts today's messages", async () => {
    const before = await http(s.url, "GET", "/api/dashboard/overview/series", {
      token: D.acme.owner,
    });
    assertEquals(before.body.days.length, 30);
    assertEquals(before.body.days[29], new Date().toISOString().slice(0, 10));
    for (const k of ["visitor", "ai", "human"]) assertEquals(before.body.messages[k].length, 30);
    const sent = await http(s.url, "POST", "/api/v1/chatbots/acme-helper/messages", {
      token: T.acme.owner.api,
      body: { message: "Hello there", visitor_id: "v-series" },
    });
    assertEquals(sent.status, 200, sent.text);
    const after = await http(s.url, "GET", "/api/dashboard/overview/series", {
      token: D.acme.owner,
    });
    assertEquals(after.body.messages.visitor[29], before.body.messages.visitor[29] + 1);
    // Another workspace's series does not see it.
    const globex = await http(s.url, "GET", "/api/dashboard/overview/series", {
      token: D.globex.owner,
    });
    assertEquals(globex.body.messages.visitor[29], 0);
  });
});

Deno.test("dashboard provider keys", serverTestOptions, async (t) => {
  await t.step("every dashboard role lists the eight; an agent's token cannot", async () => {
    for (const [role, token] of ROLES) {
      const r = await http(s.url, "GET", "/api/dashboard/keys", { token });
      assertEquals(r.status, role === "agent" ? 403 : 200, role);
      if (role !== "agent") assertEquals(r.body.data.length, 8);
    }
  });

  await t.step("owner and administrator set and delete; a viewer may not", async () => {
    for (const [role, token] of ROLES) {
      const put = await http(s.url, "PUT", "/api/dashboard/keys/provider_4", {
        token,
        body: { api_key: `sk-${role}-key-5678` },
      });
      assertEquals(put.status, role === "owner" || role === "administrator" ? 200 : 403, role);
    }
    const list = await http(s.url, "GET", "/api/dashboard/keys", { token: D.acme.viewer });
    const p4 = list.body.data.find((k: { provider: string }) => k.provider === "provider_4");
    assertEquals([p4.configured, p4.last_four], [true, "5678"]);
    assertOk(!list.text.includes("sk-administrator"), "the key itself is never returned");
    const del = await http(s.url, "DELETE", "/api/dashboard/keys/provider_4", {
      token: D.acme.owner,
    });
    assertEquals(del.status, 200);
    // Another workspace's keys are its own.
    const globex = await http(s.url, "GET", "/api/dashboard/keys", { token: D.globex.owner });
    assertEquals(globex.body.data.filter((k: { configured: boolean }) => k.configured).length, 0);
  });

  await t.step("an unknown provider and an empty key are 422 naming the field", async () => {
    const bad = await http(s.url, "PUT", "/api/dashboard/keys/provider_9", {
      token: D.acme.owner,
      body: { api_key: "" },
    });
    assertEquals(bad.status, 422);
    assertOk(bad.body.errors.provider && bad.body.errors.api_key, bad.text);
  });
});

Deno.test("stop the dashboard session test server", serverTestOptions, async () => {
  await s.stop();
  await fake.close();
});
