// deno-lint-ignore-file no-explicit-any
/**
 * The account procedures over HTTP (docs/accounts.md): profile and e-mail
 * change asking for the password; password change ending every other
 * session (tokens 401, sockets closed within seconds) and keeping the
 * current one; sessions listed with app, last use and address, ended one,
 * all others, or by an owner from Team; field errors; audit rows in the
 * action's transaction.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, PASSWORD, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { D, dashboardSeed } from "../dashboard/dashboard_seed.ts";
import { nextEvent, pusherClient, subscribe } from "../realtime/pusher_helpers.ts";

const s = await startTestServer({
  seed: dashboardSeed(),
  // A long re-check: the socket must close by the password change's event, not the tick.
  env: { TRUSTED_PROXIES: "127.0.0.1", LOGIN_MAX_ATTEMPTS: "3", REALTIME_RECHECK_SECONDS: "60" },
});
let ip = 1;
const fresh = () => ({ "x-forwarded-for": `203.0.113.${ip++}` });
const call = (method: string, path: string, token: string, body?: unknown, from?: string) =>
  http(s.url, method, path, {
    token,
    headers: { "x-forwarded-for": from ?? `198.51.100.${ip++}` },
    ...(body === undefined ? {} : { body }),
  });
const login = async (
  surface: "agent" | "dashboard" | "portal",
  email: string,
  password: string,
  device?: string,
) => {
  const r = await http(s.url, "POST", `/api/${surface}/login`, {
    body: { email, password, ...(device ? { device_name: device } : {}) },
    headers: fresh(),
  });
  assertEquals(r.status, 200, r.text);
  return r.body.token as string;
};
const audit = async (action: string) =>
  await s.deps.sql<{ actor_label: string; target_id: string; details: any; ip: string }[]>`
    SELECT actor_label, target_id, details, ip FROM audit_log WHERE action = ${action} ORDER BY id`;

Deno.test("accounts: profile, password and sessions", serverTestOptions, async (t) => {
  try {
    await t.step(
      "the profile opens with dashboard, agent and portal tokens, not API ones",
      async () => {
        for (const token of [D.acme.owner, T.acme.owner.agent, T.acme.owner.portal]) {
          const r = await call("GET", "/api/dashboard/account/profile", token);
          assertEquals(r.status, 200, r.text);
          assertEquals(r.body.email, EMAIL.acmeOwner);
        }
        assertEquals(
          (await call("GET", "/api/dashboard/account/profile", T.acme.owner.api)).status,
          403,
        );
        assertEquals((await http(s.url, "GET", "/api/dashboard/account/profile")).status, 401);
      },
    );

    await t.step(
      "a name changes; a new e-mail needs the current password; 422 names fields",
      async () => {
        const tok = T.acme.viewer.agent;
        const bad = await call("PATCH", "/api/dashboard/account/profile", tok, {
          name: "",
          email: "nope",
        });
        assertEquals(bad.status, 422, bad.text);
        assertOk(bad.body.errors.name && bad.body.errors.email, bad.text);
        const named = await call("PATCH", "/api/dashboard/account/profile", tok, {
          name: "Vera V.",
        });
        assertEquals(named.status, 200, named.text);
        assertEquals(named.body.name, "Vera V.");
        const noPw = await call("PATCH", "/api/dashboard/account/profile", tok, {
          email: "vera@acme.test",
        });
        assertEquals(noPw.status, 422);
        assertOk(noPw.body.errors.current_password, noPw.text);
        const wrong = await call("PATCH", "/api/dashboard/account/profile", tok, {
          email: "vera@acme.test",
          current_password: "not the password",
        });
        assertEquals(wrong.status, 422);
        assertOk(wrong.body.errors.current_password);
        const taken = await call("PATCH", "/api/dashboard/account/profile", tok, {
          email: EMAIL.acmeOwner,
          current_password: PASSWORD,
        });
        assertEquals(taken.status, 422);
        assertOk(taken.body.errors.email, taken.text);
        const moved = await call("PATCH", "/api/dashboard/account/profile", tok, {
          email: "Vera@Acme.test",
          current_password: PASSWORD,
        });
        assertEquals(moved.status, 200, moved.text);
        assertEquals(moved.body.email, "vera@acme.test");
        await login("dashboard", "vera@acme.test", PASSWORD);
        const rows = await audit("profile.changed");
        assertEquals(rows.at(-1)!.details.fields, ["email"]);
        assertEquals(rows.at(-2)!.details.fields, ["name"]);
      },
    );

    await t.step(
      "a password change ends every other session (401, sockets closed) and keeps the current one",
      async () => {
        const current = await login("dashboard", EMAIL.acmeAdmin, PASSWORD);
        const inbox = await login("agent", EMAIL.acmeAdmin, PASSWORD, "Web inbox");
        const app = await login("agent", EMAIL.acmeAdmin, PASSWORD, "Amy's phone");
        const me = (await call("GET", "/api/agent/me", inbox)).body;
        const socket = pusherClient(s, { token: app });
        try {
          const sub = await subscribe(socket, `private-workspace.${me.company.id}`);
          assertOk(sub.ok);
          const closed = nextEvent<any>(sub.channel, "pusher:subscription_error", 8000);

          const short = await call("POST", "/api/dashboard/account/password", current, {
            current_password: PASSWORD,
            password: "short",
          });
          assertEquals(short.status, 422);
          assertOk(short.body.errors.password, short.text);
          const wrong = await call("POST", "/api/dashboard/account/password", current, {
            current_password: "wrong password",
            password: "a brand new passphrase",
          });
          assertEquals(wrong.status, 422);
          assertOk(wrong.body.errors.current_password, wrong.text);
          // Nothing ended by the refusals.
          assertEquals((await call("GET", "/api/agent/me", inbox)).status, 200);

          const ok = await call("POST", "/api/dashboard/account/password", current, {
            current_password: PASSWORD,
            password: "a brand new passphrase",
          });
          // From the answer (the slow password hash is not the socket's part), well inside
          // the 60 s re-check this server runs with: only the revocation event closes it in time.
          const started = Date.now();
          assertEquals(ok.status, 200, ok.text);
          assertEquals(ok.body.sessions_ended >= 4, true, ok.text); // 2 logins + seeded agent, portal, dashboard
          assertEquals((await closed).status, 401);
          assertOk(Date.now() - started < 5000, "the socket closed within seconds");
          for (
            const token of [
              inbox,
              app,
              T.acme.administrator.agent,
              T.acme.administrator.portal,
              D.acme.administrator,
            ]
          ) {
            const path = token === T.acme.administrator.portal
              ? "/api/portal/me"
              : token === D.acme.administrator
              ? "/api/dashboard/me"
              : "/api/agent/me";
            assertEquals((await call("GET", path, token)).status, 401, `${token} still works`);
          }
          assertEquals((await call("GET", "/api/dashboard/me", current)).status, 200);
          // An API token is not a session: it stays.
          assertEquals((await call("GET", "/api/v1/me", T.acme.administrator.api)).status, 200);
          const old = await http(s.url, "POST", "/api/dashboard/login", {
            body: { email: EMAIL.acmeAdmin, password: PASSWORD },
            headers: fresh(),
          });
          assertEquals(old.status, 401);
          await login("dashboard", EMAIL.acmeAdmin, "a brand new passphrase");
          const [row] = await audit("auth.password_changed");
          assertEquals(row!.target_id !== null, true);
          const ended = (await audit("auth.session_ended")).at(-1)!;
          assertEquals(ended.details.reason, "password_changed");
        } finally {
          socket.disconnect();
        }
      },
    );

    await t.step("wrong current passwords count in the login lockout", async () => {
      const tok = T.acme.owner.agent;
      const from = "192.0.2.77";
      for (let i = 0; i < 3; i++) {
        const r = await call("POST", "/api/dashboard/account/password", tok, {
          current_password: "guess " + i,
          password: "whatever passphrase",
        }, from);
        assertEquals(r.status, 422);
      }
      const locked = await call("POST", "/api/dashboard/account/password", tok, {
        current_password: PASSWORD,
        password: "whatever passphrase",
      }, from);
      assertEquals(locked.status, 429, locked.text);
      assertOk(locked.headers.get("retry-after"));
      const signIn = await http(s.url, "POST", "/api/agent/login", {
        body: { email: EMAIL.acmeOwner, password: PASSWORD },
        headers: { "x-forwarded-for": from },
      });
      assertEquals(signIn.status, 429);
    });

    await t.step(
      "sessions list app, device, last use and address; end one, all others",
      async () => {
        const here = await login("agent", EMAIL.acmeAgent, PASSWORD, "Web inbox");
        const phone = await http(s.url, "POST", "/api/agent/login", {
          body: { email: EMAIL.acmeAgent, password: PASSWORD, device_name: "Sam's phone" },
          headers: { "x-forwarded-for": "192.0.2.10" },
        });
        const phoneToken = phone.body.token as string;
        await http(s.url, "GET", "/api/agent/me", {
          token: phoneToken,
          headers: { "x-forwarded-for": "192.0.2.11" },
        });
        const list = await call("GET", "/api/dashboard/account/sessions", here);
        assertEquals(list.status, 200, list.text);
        const rows = list.body.data as any[];
        const mine = rows.find((r) => r.current)!;
        assertEquals(mine.app, "inbox");
        const p = rows.find((r) => r.device_name === "Sam's phone")!;
        assertEquals(p.app, "agent_app");
        assertEquals(p.ip, "192.0.2.11"); // the address of the last use
        assertOk(p.last_used_at);
        assertOk(rows.some((r) => r.app === "portal"));
        assertOk(!JSON.stringify(rows).includes("|"), "no token text in the list");

        const one = await call("DELETE", `/api/dashboard/account/sessions/${p.id}`, here);
        assertEquals(one.status, 200, one.text);
        assertEquals((await call("GET", "/api/agent/me", phoneToken)).status, 401);
        assertEquals(
          (await call("DELETE", `/api/dashboard/account/sessions/${p.id}`, here)).status,
          404,
        );
        // Another user's session is not found.
        const ownerList =
          (await call("GET", "/api/dashboard/account/sessions", D.acme.owner)).body.data;
        assertEquals(
          (await call("DELETE", `/api/dashboard/account/sessions/${ownerList[0].id}`, here)).status,
          404,
        );
        const all = await call("DELETE", "/api/dashboard/account/sessions", here);
        assertEquals(all.status, 200, all.text);
        assertOk(all.body.ended >= 2);
        assertEquals((await call("GET", "/api/agent/me", T.acme.agent.agent)).status, 401);
        assertEquals((await call("GET", "/api/agent/me", here)).status, 200);
        const left = (await call("GET", "/api/dashboard/account/sessions", here)).body.data;
        assertEquals(left.length, 1);
        assertEquals(
          await audit("auth.session_ended").then((r) => r.at(-1)!.details.reason),
          "signed_out_elsewhere",
        );
      },
    );

    await t.step(
      "an owner ends a member's sessions from Team; an administrator not an owner's",
      async () => {
        const agentToken = await login("agent", EMAIL.acmeAgent, PASSWORD, "Web inbox");
        const team = (await call("GET", "/api/dashboard/team", D.acme.owner)).body.members as any[];
        const agentId = team.find((m) => m.email === EMAIL.acmeAgent).id;
        const ownerId = team.find((m) => m.email === EMAIL.acmeOwner).id;
        const byViewer = await call(
          "DELETE",
          `/api/dashboard/team/${agentId}/sessions`,
          D.acme.viewer,
        );
        assertEquals(byViewer.status, 403);
        const r = await call("DELETE", `/api/dashboard/team/${agentId}/sessions`, D.acme.owner);
        assertEquals(r.status, 200, r.text);
        assertEquals((await call("GET", "/api/agent/me", agentToken)).status, 401);
        const self = await call("DELETE", `/api/dashboard/team/${ownerId}/sessions`, D.acme.owner);
        assertEquals(self.status, 422);
        assertOk(self.body.errors.user);
        const admin = await login("dashboard", EMAIL.acmeAdmin, "a brand new passphrase");
        const up = await call("DELETE", `/api/dashboard/team/${ownerId}/sessions`, admin);
        assertEquals(up.status, 422);
        const other = await call(
          "DELETE",
          `/api/dashboard/team/${agentId}/sessions`,
          D.globex.owner,
        );
        assertEquals(other.status, 404);
        const row = (await audit("auth.session_ended")).at(-1)!;
        assertEquals(row.details.reason, "ended_by_admin");
        assertMatch(row.actor_label, /owner@acme\.test/);
      },
    );

    await t.step("no audit row holds a password", async () => {
      const dump = JSON.stringify(await s.deps.sql`SELECT * FROM audit_log`);
      for (
        const secret of [PASSWORD, "a brand new passphrase", "not the password", "wrong password"]
      ) {
        assertOk(!dump.includes(secret), `the audit log holds "${secret}"`);
      }
    });
  } finally {
    await s.stop();
  }
});
