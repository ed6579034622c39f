/**
 * Portal login, logout and me: who may sign in, one identical refusal for
 * every failure, the shared lockout and its expiry, token revocation.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, PASSWORD, standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";

const s = await startTestServer({
  seed: standardSeed(),
  env: { TRUSTED_PROXIES: "127.0.0.1", LOGIN_MAX_ATTEMPTS: "3", LOGIN_LOCKOUT_SECONDS: "2" },
});
let ipCounter = 1;
/** Each test speaks from its own client address, so route limits stay apart. */
const newIp = () => ({ "x-forwarded-for": `203.0.113.${ipCounter++}` });
const login = (email: string, password: string, headers = newIp()) =>
  http(s.url, "POST", "/api/portal/login", { body: { email, password }, headers });

Deno.test("portal login", serverTestOptions, async (t) => {
  await t.step(
    "an owner of a portal-enabled workspace gets a portal token and the session",
    async () => {
      const r = await login(EMAIL.acmeOwner, PASSWORD);
      assertEquals(r.status, 200);
      assertOk(typeof r.body.token === "string" && r.body.token.includes("|"));
      assertEquals(r.body.user, { name: "Ada Owner", email: EMAIL.acmeOwner, role: "owner" });
      assertEquals(r.body.company, { name: "Acme Inc", plan: "test" });
      assertEquals(r.body.brand, { name: "Acme Inc", powered_by: "Parley", logo_url: null });
      const me = await http(s.url, "GET", "/api/portal/me", { token: r.body.token });
      assertEquals(me.status, 200);
      // The token opens the portal only.
      const v1 = await http(s.url, "GET", "/api/v1/me", { token: r.body.token });
      assertEquals(v1.status, 403);
    },
  );

  await t.step("an administrator may log in, with the e-mail in any case", async () => {
    const r = await login("  ADMIN@acme.test ", PASSWORD);
    assertEquals(r.status, 200);
    assertEquals(r.body.user.role, "administrator");
  });

  await t.step("every refused login carries the same body", async () => {
    const cases = [
      { name: "wrong password", email: EMAIL.acmeOwner, password: "nope", status: 401 },
      { name: "unknown e-mail", email: "nobody@acme.test", password: PASSWORD, status: 401 },
      { name: "agent role", email: EMAIL.acmeAgent, password: PASSWORD, status: 403 },
      { name: "viewer role", email: EMAIL.acmeViewer, password: PASSWORD, status: 403 },
      { name: "portal disabled", email: EMAIL.globexOwner, password: PASSWORD, status: 403 },
      { name: "workspace suspended", email: EMAIL.umbrellaOwner, password: PASSWORD, status: 403 },
      { name: "user suspended", email: EMAIL.acmeSuspended, password: PASSWORD, status: 403 },
    ];
    const bodies = new Set<string>();
    for (const c of cases) {
      const r = await login(c.email, c.password);
      assertEquals(r.status, c.status, c.name);
      assertEquals(Object.keys(r.body), ["message"], c.name);
      bodies.add(r.text);
    }
    assertEquals(bodies.size, 1);
  });

  await t.step("an unknown e-mail costs the same time as a wrong password", async () => {
    const time = async (email: string) => {
      const t0 = performance.now();
      await login(email, "wrong-password");
      return performance.now() - t0;
    };
    await time(EMAIL.acmeAdmin); // warm up
    let known = 0, unknown = 0;
    for (let i = 0; i < 3; i++) {
      known += await time(EMAIL.acmeAdmin);
      unknown += await time(`ghost${i}@acme.test`);
    }
    // bcrypt dominates both paths: a missing user must not answer markedly faster.
    assertOk(unknown > known * 0.6, `unknown ${unknown} ms vs known ${known} ms`);
  });

  await t.step("bad input is 422 naming the field", async () => {
    const r = await http(s.url, "POST", "/api/portal/login", {
      body: { email: "not-an-email" },
      headers: newIp(),
    });
    assertEquals(r.status, 422);
    assertOk(r.body.errors.email);
    assertOk(r.body.errors.password);
    const long = await login("a".repeat(250) + "@x.test", PASSWORD);
    assertEquals(long.status, 422);
    assertOk(long.body.errors.email);
  });

  await t.step("the route allows 10 logins per minute per IP", async () => {
    const ip = newIp();
    for (let i = 0; i < 10; i++) {
      const r = await login(`rate${i}@acme.test`, "x", ip);
      assertEquals(r.status, 401);
      assertEquals(r.headers.get("x-ratelimit-limit"), "10");
    }
    const r = await login("rate-last@acme.test", "x", ip);
    assertEquals(r.status, 429);
    assertOk(Number(r.headers.get("retry-after")) > 0);
  });
});

Deno.test("login lockout", serverTestOptions, async (t) => {
  await t.step(
    "repeated failures lock the e-mail for that IP, even with the right password, until it expires",
    async () => {
      const ip = newIp();
      for (let i = 0; i < 3; i++) {
        assertEquals((await login(EMAIL.acmeAdmin, "wrong", ip)).status, 401);
      }
      const locked = await login(EMAIL.acmeAdmin, PASSWORD, ip);
      assertEquals(locked.status, 429);
      const retry = Number(locked.headers.get("retry-after"));
      assertOk(retry >= 1 && retry <= 2, `Retry-After ${retry}`);
      assertOk(typeof locked.body.message === "string");
      // Another address is not locked: the lock is per e-mail and IP.
      assertEquals((await login(EMAIL.acmeAdmin, PASSWORD)).status, 200);
      await new Promise((r) => setTimeout(r, 2100));
      assertEquals((await login(EMAIL.acmeAdmin, PASSWORD, ip)).status, 200);
    },
  );

  await t.step("a success clears the failure count", async () => {
    const ip = newIp();
    assertEquals((await login(EMAIL.acmeOwner, "wrong", ip)).status, 401);
    assertEquals((await login(EMAIL.acmeOwner, "wrong", ip)).status, 401);
    assertEquals((await login(EMAIL.acmeOwner, PASSWORD, ip)).status, 200);
    assertEquals((await login(EMAIL.acmeOwner, "wrong", ip)).status, 401);
    assertEquals((await login(EMAIL.acmeOwner, "wrong", ip)).status, 401);
    assertEquals((await login(EMAIL.acmeOwner, PASSWORD, ip)).status, 200);
  });
});

Deno.test("portal me and logout", serverTestOptions, async (t) => {
  await t.step("me returns user, company, brand, plan limits and this month's usage", async () => {
    const r = await http(s.url, "GET", "/api/portal/me", { token: T.acme.owner.portal });
    assertEquals(r.status, 200);
    assertEquals(r.body.limits, {
      plan: "Test",
      monthly_message_limit: 1000,
      chatbot_limit: 5,
      agent_seats: 5,
    });
    assertEquals(r.body.usage.message_limit, 1000);
    assertEquals(typeof r.body.usage.messages_used, "number");
    assertEquals(typeof r.body.usage.usage_percent, "number");
    assertEquals(r.body.usage.chatbots, 2);
  });

  await t.step("usage_percent is null on an unlimited plan", async () => {
    // Globex (unlimited plan) has the portal disabled in the seed: enable it for this read.
    await s.deps.sql`UPDATE workspaces SET portal_enabled = true WHERE slug = 'globex'`;
    const r = await http(s.url, "GET", "/api/portal/me", { token: T.globex.owner.portal });
    await s.deps.sql`UPDATE workspaces SET portal_enabled = false WHERE slug = 'globex'`;
    assertEquals(r.status, 200);
    assertEquals(r.body.limits.monthly_message_limit, null);
    assertEquals(r.body.usage.usage_percent, null);
  });

  await t.step("me needs a portal token", async () => {
    assertEquals((await http(s.url, "GET", "/api/portal/me")).status, 401);
    assertEquals(
      (await http(s.url, "GET", "/api/portal/me", { token: "garbage-token-xx" })).status,
      401,
    );
    assertEquals(
      (await http(s.url, "GET", "/api/portal/me", { token: T.acme.owner.api })).status,
      403,
    );
  });

  await t.step("a portal token stops working once the workspace's portal is disabled", async () => {
    await s.deps.sql`UPDATE workspaces SET portal_enabled = false WHERE slug = 'acme'`;
    try {
      const r = await http(s.url, "GET", "/api/portal/me", { token: T.acme.owner.portal });
      assertEquals(r.status, 403);
      assertEquals(typeof r.body.message, "string");
      const put = await http(s.url, "PUT", "/api/portal/chatbots/acme-helper", {
        token: T.acme.owner.portal,
        body: { name: "Acme Helper" },
      });
      assertEquals(put.status, 403);
    } finally {
      await s.deps.sql`UPDATE workspaces SET portal_enabled = true WHERE slug = 'acme'`;
    }
    assertEquals(
      (await http(s.url, "GET", "/api/portal/me", { token: T.acme.owner.portal })).status,
      200,
    );
  });

  await t.step("logout revokes the token used, and only that one", async () => {
    const a = (await login(EMAIL.acmeOwner, PASSWORD)).body.token as string;
    const b = (await login(EMAIL.acmeOwner, PASSWORD)).body.token as string;
    const out = await http(s.url, "POST", "/api/portal/logout", { token: a });
    assertEquals(out.status, 200);
    assertEquals(typeof out.body.message, "string");
    assertEquals((await http(s.url, "GET", "/api/portal/me", { token: a })).status, 401);
    assertEquals((await http(s.url, "GET", "/api/portal/me", { token: b })).status, 200);
    assertEquals((await http(s.url, "POST", "/api/portal/logout", { token: a })).status, 401);
  });
});

Deno.test("stop the session test server", serverTestOptions, async () => {
  await s.stop();
});
