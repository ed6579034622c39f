/**
 * Two-factor sign-in over HTTP (docs/accounts.md): enrolment with an agent
 * token, the agent and portal logins' second step (TOTP code computed here
 * per RFC 6238, each code once, recovery codes once), wrong codes counted in
 * the shared lockout, disable with password and code, the audit rows, and the
 * spec's answers unchanged for a user without two-factor.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, PASSWORD, standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { awayFromStepEdge, secretOfUri, totpCode } from "../helpers/totp.ts";

const s = await startTestServer({
  seed: standardSeed(),
  env: { TRUSTED_PROXIES: "127.0.0.1", LOGIN_MAX_ATTEMPTS: "4", LOGIN_LOCKOUT_SECONDS: "60" },
});
let ipCounter = 1;
const newIp = () => ({ "x-forwarded-for": `198.51.100.${ipCounter++}` });
const post = (path: string, body: unknown, headers = newIp(), token?: string) =>
  http(s.url, "POST", path, { body, headers, token });

/** Enrol a user through their agent token; answers the secret and the recovery codes. */
async function enrol(agentToken: string, offset = -1) {
  const setup = await post("/api/agent/account/two-factor/setup", {}, newIp(), agentToken);
  assertEquals(setup.status, 200, setup.text);
  const secret = setup.body.secret as string;
  await awayFromStepEdge();
  const confirm = await post(
    "/api/agent/account/two-factor/confirm",
    { code: totpCode(secret, offset) },
    newIp(),
    agentToken,
  );
  assertEquals(confirm.status, 200, confirm.text);
  return { secret, recoveryCodes: confirm.body.recovery_codes as string[], setup: setup.body };
}

const agentLoginKeys = ["company", "device_name", "expires_at", "token", "user"];

Deno.test("two-factor sign-in on the agent and portal logins", serverTestOptions, async (t) => {
  let secret = "";
  let recoveryCodes: string[] = [];

  await t.step("enrolment: QR code, typed secret, a first code, ten recovery codes", async () => {
    const before = await http(s.url, "GET", "/api/agent/account/two-factor", {
      token: T.acme.agent.agent,
    });
    assertEquals(before.body, {
      enabled: false,
      enabled_at: null,
      recovery_codes_left: 0,
      required_by_workspace: false,
    });
    const wrong = await post(
      "/api/agent/account/two-factor/confirm",
      { code: "000000" },
      newIp(),
      T.acme.agent.agent,
    );
    assertEquals(wrong.status, 422);
    const enrolled = await enrol(T.acme.agent.agent);
    secret = enrolled.secret;
    recoveryCodes = enrolled.recoveryCodes;
    assertOk(/^[A-Z2-7]{32}$/.test(secret), secret);
    assertEquals(secretOfUri(enrolled.setup.otpauth_uri as string), secret);
    assertOk((enrolled.setup.otpauth_uri as string).startsWith("otpauth://totp/Parley:"));
    assertOk((enrolled.setup.qr_svg as string).startsWith("<svg"));
    assertEquals(recoveryCodes.length, 10);
    assertEquals(new Set(recoveryCodes).size, 10);
    const after = await http(s.url, "GET", "/api/agent/account/two-factor", {
      token: T.acme.agent.agent,
    });
    assertEquals(after.body.enabled, true);
    assertEquals(after.body.recovery_codes_left, 10);
  });

  await t.step("the secret is stored encrypted, the recovery codes hashed", async () => {
    const [row] = await s.deps.sql<{ two_factor_secret: string }[]>`
      SELECT two_factor_secret FROM users WHERE email = ${EMAIL.acmeAgent}`;
    assertOk(row && row.two_factor_secret && !row.two_factor_secret.includes(secret));
    const dump = JSON.stringify(
      await s.deps.sql`SELECT * FROM two_factor_recovery_codes`,
    );
    for (const code of recoveryCodes) assertOk(!dump.includes(code), code);
  });

  let challenge = "";
  await t.step("the agent login asks for the second step instead of a token", async () => {
    const r = await post("/api/agent/login", {
      email: EMAIL.acmeAgent,
      password: PASSWORD,
      device_name: "Amy's phone",
    });
    assertEquals(r.status, 401);
    assertEquals(r.body.two_factor_required, true);
    assertEquals(Object.keys(r.body).sort(), [
      "challenge",
      "challenge_expires_at",
      "message",
      "two_factor_required",
    ]);
    assertOk(!("token" in r.body));
    challenge = r.body.challenge;
  });

  await t.step("a code already used is refused; the next one signs in", async () => {
    const ip = newIp();
    // The confirm used the previous step's code: it cannot be used again.
    const reused = await post("/api/agent/login/two-factor", {
      challenge,
      code: totpCode(secret, -1),
    }, ip);
    assertEquals(reused.status, 401);
    await awayFromStepEdge();
    const ok = await post("/api/agent/login/two-factor", { challenge, code: totpCode(secret) }, ip);
    assertEquals(ok.status, 200, ok.text);
    assertEquals(Object.keys(ok.body).sort(), agentLoginKeys);
    assertEquals(ok.body.device_name, "Amy's phone");
    assertEquals(ok.body.user.email, EMAIL.acmeAgent);
    const me = await http(s.url, "GET", "/api/agent/me", { token: ok.body.token });
    assertEquals(me.status, 200);
    // The challenge is closed once used, and the same code is spent.
    const again = await post("/api/agent/login/two-factor", {
      challenge,
      code: totpCode(secret),
    }, ip);
    assertEquals(again.status, 401);
  });

  await t.step("a recovery code signs in once", async () => {
    const login = async () =>
      (await post("/api/agent/login", { email: EMAIL.acmeAgent, password: PASSWORD })).body
        .challenge as string;
    const code = recoveryCodes[0]!;
    const ok = await post("/api/agent/login/two-factor", {
      challenge: await login(),
      code: code.toLowerCase(),
    });
    assertEquals(ok.status, 200, ok.text);
    const twice = await post("/api/agent/login/two-factor", { challenge: await login(), code });
    assertEquals(twice.status, 401);
    const status = await http(s.url, "GET", "/api/agent/account/two-factor", {
      token: T.acme.agent.agent,
    });
    assertEquals(status.body.recovery_codes_left, 9);
  });

  await t.step("wrong codes count in the shared lockout: 429 after the limit", async () => {
    const ip = newIp();
    const r = await post("/api/agent/login", { email: EMAIL.acmeAgent, password: PASSWORD }, ip);
    const c = r.body.challenge as string;
    for (let i = 0; i < 4; i++) {
      const wrong = await post("/api/agent/login/two-factor", { challenge: c, code: "000001" }, ip);
      assertEquals(wrong.status, 401, `attempt ${i + 1}`);
    }
    const locked = await post("/api/agent/login/two-factor", { challenge: c, code: "000001" }, ip);
    assertEquals(locked.status, 429);
    assertOk(Number(locked.headers.get("retry-after")) > 0);
    // The same lockout holds the password login of that address.
    const pw = await post("/api/agent/login", { email: EMAIL.acmeAgent, password: PASSWORD }, ip);
    assertEquals(pw.status, 429);
  });

  await t.step("the password step does not reset the count between code guesses", async () => {
    const ip = newIp();
    for (let i = 0; i < 4; i++) {
      const r = await post("/api/agent/login", { email: EMAIL.acmeAgent, password: PASSWORD }, ip);
      assertEquals(r.status, 401, `round ${i + 1}`);
      const wrong = await post("/api/agent/login/two-factor", {
        challenge: r.body.challenge,
        code: "000002",
      }, ip);
      assertEquals(wrong.status, 401);
    }
    const r = await post("/api/agent/login", { email: EMAIL.acmeAgent, password: PASSWORD }, ip);
    assertEquals(r.status, 429);
  });

  await t.step("the portal login asks for the second step and answers its own shape", async () => {
    const admin = await enrol(T.acme.administrator.agent);
    const r = await post("/api/portal/login", { email: EMAIL.acmeAdmin, password: PASSWORD });
    assertEquals(r.status, 401);
    assertEquals(r.body.two_factor_required, true);
    // A portal challenge opens the portal's second step only.
    const elsewhere = await post("/api/agent/login/two-factor", {
      challenge: r.body.challenge,
      code: totpCode(admin.secret),
    });
    assertEquals(elsewhere.status, 401);
    await awayFromStepEdge();
    const ok = await post("/api/portal/login/two-factor", {
      challenge: r.body.challenge,
      code: totpCode(admin.secret),
    });
    assertEquals(ok.status, 200, ok.text);
    assertEquals(Object.keys(ok.body).sort(), ["brand", "company", "token", "user"]);
    assertEquals(ok.body.user, {
      name: "Abe Admin",
      email: EMAIL.acmeAdmin,
      role: "administrator",
    });
    const me = await http(s.url, "GET", "/api/portal/me", { token: ok.body.token });
    assertEquals(me.status, 200);
  });

  await t.step("disable needs the password and a code", async () => {
    const wrongPassword = await post(
      "/api/agent/account/two-factor/disable",
      {
        password: "nope",
        code: totpCode(secret, 1),
      },
      newIp(),
      T.acme.agent.agent,
    );
    assertEquals(wrongPassword.status, 422);
    assertOk(wrongPassword.body.errors.password);
    const wrongCode = await post(
      "/api/agent/account/two-factor/disable",
      {
        password: PASSWORD,
        code: "000003",
      },
      newIp(),
      T.acme.agent.agent,
    );
    assertEquals(wrongCode.status, 422);
    assertOk(wrongCode.body.errors.code);
    await awayFromStepEdge();
    const ok = await post(
      "/api/agent/account/two-factor/disable",
      {
        password: PASSWORD,
        code: totpCode(secret, 1),
      },
      newIp(),
      T.acme.agent.agent,
    );
    assertEquals(ok.status, 200, ok.text);
    const r = await post("/api/agent/login", { email: EMAIL.acmeAgent, password: PASSWORD });
    assertEquals(r.status, 200);
    assertEquals(Object.keys(r.body).sort(), agentLoginKeys);
  });

  await t.step("the audit log holds each sign-in event and no secret", async () => {
    const rows = await s.deps.sql<
      { action: string; workspace_id: string | null; details: unknown }[]
    >`
      SELECT action, workspace_id::text, details FROM audit_log ORDER BY id`;
    const actions = new Set(rows.map((r) => r.action));
    for (
      const a of [
        "auth.sign_in",
        "auth.sign_in_failed",
        "auth.two_factor_enabled",
        "auth.two_factor_disabled",
        "auth.recovery_code_used",
      ]
    ) assertOk(actions.has(a), a);
    const failedCode = rows.find((r) =>
      r.action === "auth.sign_in_failed" &&
      (r.details as { reason: string }).reason === "wrong_two_factor_code"
    );
    assertOk(failedCode && failedCode.workspace_id !== null);
    const dump = JSON.stringify(await s.deps.sql`SELECT * FROM audit_log`);
    for (const code of recoveryCodes) assertOk(!dump.includes(code), code);
    assertOk(!dump.includes(secret) && !dump.includes(PASSWORD));
  });

  await t.step("a failed sign-in of an unknown address has no workspace", async () => {
    await post("/api/portal/login", { email: "ghost@nowhere.test", password: "x" });
    const [row] = await s.deps.sql<{ workspace_id: string | null; actor_label: string }[]>`
      SELECT workspace_id::text, actor_label FROM audit_log
       WHERE action = 'auth.sign_in_failed' ORDER BY id DESC LIMIT 1`;
    assertEquals(row, { workspace_id: null, actor_label: "ghost@nowhere.test" });
  });
});

Deno.test("an owner requires two-factor of the workspace", serverTestOptions, async (t) => {
  const dash = await post("/api/dashboard/login", { email: EMAIL.acmeOwner, password: PASSWORD });
  assertEquals(dash.status, 200);
  const ownerToken = dash.body.token as string;

  await t.step("only after turning it on for themselves", async () => {
    const early = await http(s.url, "PUT", "/api/dashboard/settings/two-factor", {
      token: ownerToken,
      body: { required: true },
    });
    assertEquals(early.status, 422);
    const setup = await post("/api/dashboard/account/two-factor/setup", {}, newIp(), ownerToken);
    await awayFromStepEdge();
    const confirm = await post(
      "/api/dashboard/account/two-factor/confirm",
      {
        code: totpCode(setup.body.secret),
      },
      newIp(),
      ownerToken,
    );
    assertEquals(confirm.status, 200, confirm.text);
    const on = await http(s.url, "PUT", "/api/dashboard/settings/two-factor", {
      token: ownerToken,
      body: { required: true },
    });
    assertEquals(on.status, 200, on.text);
  });

  await t.step("a member without it is asked to set it up at sign-in", async () => {
    const r = await post("/api/dashboard/login", { email: EMAIL.acmeViewer, password: PASSWORD });
    assertEquals(r.status, 403);
    assertEquals(r.body.two_factor_setup_required, true);
    const setup = await post("/api/dashboard/login/two-factor/setup", {
      challenge: r.body.challenge,
    });
    assertEquals(setup.status, 200, setup.text);
    assertOk(setup.body.qr_svg.startsWith("<svg"));
    await awayFromStepEdge();
    const done = await post("/api/dashboard/login/two-factor", {
      challenge: r.body.challenge,
      code: totpCode(setup.body.secret),
    });
    assertEquals(done.status, 200, done.text);
    assertEquals(done.body.recovery_codes.length, 10);
    assertEquals(done.body.user.email, EMAIL.acmeViewer);
    const status = await http(s.url, "GET", "/api/dashboard/account/two-factor", {
      token: done.body.token,
    });
    assertEquals(status.body.enabled, true);
    assertEquals(status.body.required_by_workspace, true);
  });

  await t.step("a viewer cannot change the rule; another workspace is untouched", async () => {
    const globex = await post("/api/portal/login", {
      email: EMAIL.globexOwner,
      password: PASSWORD,
    });
    assertEquals(globex.status, 403); // portal disabled there: the spec's refusal, no challenge
    assertEquals(Object.keys(globex.body), ["message"]);
    const off = await http(s.url, "PUT", "/api/dashboard/settings/two-factor", {
      token: ownerToken,
      body: { required: false },
    });
    assertEquals(off.status, 200);
  });
});

Deno.test("stop the server", serverTestOptions, async () => {
  await s.stop();
});
