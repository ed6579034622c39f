/**
 * Agent login, refresh, me and logout: who may sign in (never the viewer
 * seat), one refusal body, the lockout shared with the portal login, the
 * device name on the token, refresh's shape and limit, revocation.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, PASSWORD, standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";

const s = await startTestServer({
  seed: standardSeed(),
  env: { TRUSTED_PROXIES: "127.0.0.1", LOGIN_MAX_ATTEMPTS: "3", LOGIN_LOCKOUT_SECONDS: "30" },
});
let ipCounter = 1;
const newIp = () => ({ "x-forwarded-for": `198.51.100.${ipCounter++}` });
const login = (body: Record<string, unknown>, headers = newIp()) =>
  http(s.url, "POST", "/api/agent/login", { body, headers });

Deno.test("agent login", serverTestOptions, async (t) => {
  await t.step("an agent gets a token, its expiry, the device name, user and company", async () => {
    const r = await login({
      email: EMAIL.acmeAgent,
      password: PASSWORD,
      device_name: "Amy's phone",
    });
    assertEquals(r.status, 200);
    assertOk(typeof r.body.token === "string" && r.body.token.includes("|"));
    assertEquals(Object.keys(r.body).sort(), [
      "company",
      "device_name",
      "expires_at",
      "token",
      "user",
    ]);
    assertEquals(r.body.device_name, "Amy's phone");
    const days = (Date.parse(r.body.expires_at) - Date.now()) / 86_400_000;
    assertOk(days > 29.9 && days <= 30, `expires in ${days} days`);
    assertEquals(r.body.user.name, "Amy Agent");
    assertEquals(r.body.user.email, EMAIL.acmeAgent);
    assertEquals(r.body.user.role, "Agent");
    assertEquals(r.body.user.avatar, null);
    assertEquals(typeof r.body.user.id, "number");
    assertEquals(r.body.company.name, "Acme Inc");
    assertEquals(r.body.company.plan, "test");
    const me = await http(s.url, "GET", "/api/agent/me", { token: r.body.token });
    assertEquals(me.status, 200);
    assertEquals(me.body.device_name, "Amy's phone");
    assertEquals(me.body.user, r.body.user);
    assertEquals(me.body.company, r.body.company);
    assertEquals(me.body.expires_at, r.body.expires_at);
    // The agent token opens the agent API only.
    assertEquals((await http(s.url, "GET", "/api/v1/me", { token: r.body.token })).status, 403);
    assertEquals(
      (await http(s.url, "GET", "/api/portal/me", { token: r.body.token })).status,
      403,
    );
  });

  await t.step("owners and administrators may log in; roles show in display form", async () => {
    const owner = await login({ email: EMAIL.acmeOwner, password: PASSWORD });
    assertEquals(owner.status, 200);
    assertEquals(owner.body.user.role, "Owner");
    assertEquals(owner.body.device_name, null);
    const admin = await login({ email: "ADMIN@acme.test ", password: PASSWORD });
    assertEquals(admin.status, 200);
    assertEquals(admin.body.user.role, "Administrator");
  });

  await t.step("every refused login carries the same body", async () => {
    const cases = [
      { name: "wrong password", email: EMAIL.acmeAgent, password: "nope", status: 401 },
      { name: "unknown e-mail", email: "nobody@acme.test", password: PASSWORD, status: 401 },
      { name: "viewer seat", email: EMAIL.acmeViewer, password: PASSWORD, status: 403 },
      { name: "workspace suspended", email: EMAIL.umbrellaOwner, password: PASSWORD, status: 403 },
      { name: "user suspended", email: EMAIL.acmeSuspended, password: PASSWORD, status: 403 },
    ];
    const bodies = new Set<string>();
    for (const c of cases) {
      const r = await login({ email: c.email, password: c.password });
      assertEquals(r.status, c.status, c.name);
      assertEquals(Object.keys(r.body), ["message"], c.name);
      bodies.add(r.text);
    }
    assertEquals(bodies.size, 1);
  });

  await t.step("an unknown e-mail costs the same time as a wrong password", async () => {
    const time = async (email: string) => {
      const t0 = performance.now();
      await login({ email, password: "wrong-password" });
      return performance.now() - t0;
    };
    await time(EMAIL.acmeAdmin);
    let known = 0, unknown = 0;
    for (let i = 0; i < 3; i++) {
      known += await time(EMAIL.acmeAdmin);
      unknown += await time(`ghost${i}@acme.test`);
    }
    assertOk(unknown > known * 0.6, `unknown ${unknown} ms vs known ${known} ms`);
  });

  await t.step("bad input is 422 naming each field", async () => {
    const r = await login({ email: "not-an-email", device_name: "d".repeat(121) });
    assertEquals(r.status, 422);
    assertOk(r.body.errors.email);
    assertOk(r.body.errors.password);
    assertOk(r.body.errors.device_name);
  });

  await t.step("the route allows 10 logins per minute per IP", async () => {
    const ip = newIp();
    for (let i = 0; i < 10; i++) {
      const r = await login({ email: `rate${i}@acme.test`, password: "x" }, ip);
      assertEquals(r.status, 401);
      assertEquals(r.headers.get("x-ratelimit-limit"), "10");
    }
    const r = await login({ email: "rate-last@acme.test", password: "x" }, ip);
    assertEquals(r.status, 429);
    assertOk(Number(r.headers.get("retry-after")) > 0);
  });

  await t.step("failures at the portal login lock the agent login too (one counter)", async () => {
    const ip = newIp();
    for (let i = 0; i < 3; i++) {
      const r = await http(s.url, "POST", "/api/portal/login", {
        body: { email: EMAIL.acmeAdmin, password: "wrong" },
        headers: ip,
      });
      assertEquals(r.status, 401);
    }
    const locked = await login({ email: EMAIL.acmeAdmin, password: PASSWORD }, ip);
    assertEquals(locked.status, 429);
    assertOk(Number(locked.headers.get("retry-after")) >= 1);
  });
});

Deno.test("agent refresh, me and logout", serverTestOptions, async (t) => {
  await t.step(
    "refresh returns a new token in the login shape; the old one still works",
    async () => {
      const first = await login({ email: EMAIL.acmeAgent, password: PASSWORD, device_name: "Tab" });
      const r = await http(s.url, "POST", "/api/agent/refresh", { token: first.body.token });
      assertEquals(r.status, 200);
      assertEquals(Object.keys(r.body).sort(), Object.keys(first.body).sort());
      assertOk(r.body.token !== first.body.token);
      assertEquals(r.body.device_name, "Tab");
      assertEquals(r.body.user, first.body.user);
      assertEquals(
        (await http(s.url, "GET", "/api/agent/me", { token: r.body.token })).status,
        200,
      );
      assertEquals(
        (await http(s.url, "GET", "/api/agent/me", { token: first.body.token })).status,
        200,
      );
    },
  );

  await t.step("refresh allows 6 per hour per user", async () => {
    const token = (await login({ email: EMAIL.acmeOwner, password: PASSWORD })).body.token;
    for (let i = 0; i < 6; i++) {
      const r = await http(s.url, "POST", "/api/agent/refresh", { token });
      assertEquals(r.status, 200, `refresh ${i + 1}`);
      assertEquals(r.headers.get("x-ratelimit-limit"), "6");
    }
    const r = await http(s.url, "POST", "/api/agent/refresh", { token });
    assertEquals(r.status, 429);
    assertOk(Number(r.headers.get("retry-after")) > 3000);
  });

  await t.step("me and refresh need an agent token", async () => {
    assertEquals((await http(s.url, "GET", "/api/agent/me")).status, 401);
    assertEquals(
      (await http(s.url, "GET", "/api/agent/me", { token: "garbage-token-xx" })).status,
      401,
    );
    assertEquals(
      (await http(s.url, "GET", "/api/agent/me", { token: T.acme.owner.api })).status,
      403,
    );
    assertEquals(
      (await http(s.url, "POST", "/api/agent/refresh", { token: T.acme.owner.portal })).status,
      403,
    );
    // A seeded agent token of a viewer still reads who it is.
    assertEquals(
      (await http(s.url, "GET", "/api/agent/me", { token: T.acme.viewer.agent })).status,
      200,
    );
  });

  await t.step("logout revokes the token used, and only that one", async () => {
    const a = (await login({ email: EMAIL.acmeAgent, password: PASSWORD })).body.token;
    const b = (await login({ email: EMAIL.acmeAgent, password: PASSWORD })).body.token;
    const out = await http(s.url, "POST", "/api/agent/logout", { token: a });
    assertEquals(out.status, 200);
    assertEquals(typeof out.body.message, "string");
    assertEquals((await http(s.url, "GET", "/api/agent/me", { token: a })).status, 401);
    assertEquals((await http(s.url, "GET", "/api/agent/me", { token: b })).status, 200);
    assertEquals((await http(s.url, "POST", "/api/agent/logout", { token: a })).status, 401);
  });
});

Deno.test("stop the agent session test server", serverTestOptions, async () => {
  await s.stop();
});
