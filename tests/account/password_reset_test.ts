// deno-lint-ignore-file no-explicit-any
/**
 * Password reset (docs/accounts.md): the link from the received mail (SMTP
 * sink) sets a new password once, ends every session, and expires after an
 * hour (the server's clock moved, nothing slept); an unknown address gets the
 * same answer; limits per address and per e-mail, and the shared lockout;
 * without SMTP the answer says who can help, and an owner issues a link from
 * Team; the admin CLI's `user:password`.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, PASSWORD, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startSmtpSink } from "../helpers/smtp_sink.ts";
import { D, dashboardSeed } from "../dashboard/dashboard_seed.ts";
import { setUserPassword } from "../../domain/admin/set_user_password.ts";

const smtp = await startSmtpSink();
const s = await startTestServer({
  seed: dashboardSeed(),
  env: { SMTP_URL: smtp.url, TRUSTED_PROXIES: "127.0.0.1", LOGIN_MAX_ATTEMPTS: "3" },
});
const noMail = await startTestServer({
  seed: dashboardSeed(),
  env: { TRUSTED_PROXIES: "127.0.0.1" },
});
let ip = 1;
const fresh = () => ({ "x-forwarded-for": `203.0.113.${ip++}` });
const post = (url: string, path: string, body: unknown, from?: string) =>
  http(url, "POST", path, { body, headers: from ? { "x-forwarded-for": from } : fresh() });
const secretOf = (text: string) => /#\/reset\/(\S+)/.exec(text)![1]!;

Deno.test("accounts: password reset", serverTestOptions, async (t) => {
  try {
    await t.step("the mailed link sets a new password once and ends every session", async () => {
      const r = await post(s.url, "/api/dashboard/password/forgot", {
        email: "Agent@Acme.test",
        app: "inbox",
      });
      assertEquals(r.status, 200, r.text);
      assertEquals(r.body.emailed, true);
      const [mail] = await smtp.waitFor(1);
      assertEquals(mail!.to, [EMAIL.acmeAgent]);
      assertOk(mail!.text.includes("/inbox#/reset/"), mail!.text);
      const token = secretOf(mail!.text);
      const stored = JSON.stringify(await s.deps.sql`SELECT * FROM password_resets`);
      assertOk(!stored.includes(token), "the secret is stored hashed");

      const short = await post(s.url, "/api/dashboard/password/reset", {
        token,
        password: "short",
      });
      assertEquals(short.status, 422);
      assertOk(short.body.errors.password);
      const used = await post(s.url, "/api/dashboard/password/reset", {
        token,
        password: "reset passphrase 1",
      });
      assertEquals(used.status, 200, used.text);
      assertEquals(used.body.sign_in_at, "/inbox");
      assertEquals(used.body.email, EMAIL.acmeAgent);
      assertEquals(
        (await http(s.url, "GET", "/api/agent/me", { token: T.acme.agent.agent })).status,
        401,
      );
      assertEquals(
        (await http(s.url, "GET", "/api/dashboard/me", { token: D.acme.agent })).status,
        401,
      );
      const again = await post(s.url, "/api/dashboard/password/reset", {
        token,
        password: "reset passphrase 2",
      });
      assertEquals(again.status, 422);
      assertOk(again.body.errors.token, again.text);
      const signIn = await post(s.url, "/api/agent/login", {
        email: EMAIL.acmeAgent,
        password: "reset passphrase 1",
      });
      assertEquals(signIn.status, 200);
      const actions = (await s.deps.sql<{ action: string }[]>`
        SELECT action FROM audit_log WHERE target_type = 'user' ORDER BY id`).map((r) => r.action);
      for (
        const a of ["auth.password_reset_requested", "auth.password_reset", "auth.session_ended"]
      ) {
        assertOk(actions.includes(a), `no ${a} row`);
      }
    });

    await t.step("an unknown address gets the same answer, and no mail", async () => {
      const before = smtp.mails.length;
      const known = await post(s.url, "/api/dashboard/password/forgot", {
        email: EMAIL.acmeViewer,
      });
      const unknown = await post(s.url, "/api/dashboard/password/forgot", {
        email: "nobody@acme.test",
      });
      assertEquals(unknown.status, known.status);
      assertEquals(unknown.text, known.text);
      await smtp.waitFor(before + 1);
      await new Promise((r) => setTimeout(r, 300));
      assertEquals(smtp.mails.length, before + 1);
    });

    await t.step("a link expires after an hour; a newer link replaces an older one", async () => {
      const before = smtp.mails.length;
      await post(s.url, "/api/dashboard/password/forgot", { email: EMAIL.acmeOwner });
      await post(s.url, "/api/dashboard/password/forgot", { email: EMAIL.acmeOwner });
      const mails = await smtp.waitFor(before + 2);
      const first = secretOf(mails[before]!.text);
      const second = secretOf(mails[before + 1]!.text);
      const replaced = await post(s.url, "/api/dashboard/password/reset", {
        token: first,
        password: "owner passphrase",
      });
      assertEquals(replaced.status, 422);
      const realClock = s.deps.clock;
      const later = new Date(Date.now() + 61 * 60 * 1000);
      s.deps.clock = () => later;
      try {
        const expired = await post(s.url, "/api/dashboard/password/reset", {
          token: second,
          password: "owner passphrase",
        });
        assertEquals(expired.status, 422, expired.text);
      } finally {
        s.deps.clock = realClock;
      }
      const inTime = await post(s.url, "/api/dashboard/password/reset", {
        token: second,
        password: "owner passphrase",
      });
      assertEquals(inTime.status, 200, inTime.text);
    });

    await t.step(
      "requests are limited per e-mail and per address, and count in the lockout",
      async () => {
        // Per e-mail: 3 an hour, whatever the address.
        for (let i = 0; i < 3; i++) {
          assertEquals(
            (await post(s.url, "/api/dashboard/password/forgot", { email: "limit@acme.test" }))
              .status,
            200,
          );
        }
        const perEmail = await post(s.url, "/api/dashboard/password/forgot", {
          email: "limit@acme.test",
        });
        assertEquals(perEmail.status, 429);
        assertOk(perEmail.headers.get("retry-after"));
        // Per address: 5 a minute, whatever the e-mail.
        const from = "192.0.2.50";
        for (let i = 0; i < 5; i++) {
          await post(s.url, "/api/dashboard/password/forgot", { email: `ip${i}@acme.test` }, from);
        }
        assertEquals(
          (await post(s.url, "/api/dashboard/password/forgot", { email: "ip9@acme.test" }, from))
            .status,
          429,
        );
        // Lockout (3 attempts here): three requests for one e-mail and address lock its sign-in.
        const pair = "192.0.2.60";
        for (let i = 0; i < 3; i++) {
          await post(s.url, "/api/dashboard/password/forgot", { email: EMAIL.acmeAdmin }, pair);
        }
        const locked = await post(s.url, "/api/dashboard/login", {
          email: EMAIL.acmeAdmin,
          password: PASSWORD,
        }, pair);
        assertEquals(locked.status, 429);
        // Wrong links count too, per address.
        const guesser = "192.0.2.70";
        for (let i = 0; i < 3; i++) {
          const r = await post(s.url, "/api/dashboard/password/reset", {
            token: `guess${i}`,
            password: "some passphrase",
          }, guesser);
          assertEquals(r.status, 422);
        }
        const stopped = await post(s.url, "/api/dashboard/password/reset", {
          token: "guess9",
          password: "some passphrase",
        }, guesser);
        assertEquals(stopped.status, 429);
      },
    );

    await t.step(
      "without SMTP the answer says who can help; an owner issues a link from Team",
      async () => {
        const r = await post(noMail.url, "/api/dashboard/password/forgot", {
          email: EMAIL.acmeAgent,
        });
        assertEquals(r.status, 200);
        assertEquals(r.body.emailed, false);
        assertOk(/owner or administrator/.test(r.body.message), r.body.message);
        const team = (await http(noMail.url, "GET", "/api/dashboard/team", { token: D.acme.owner }))
          .body.members as any[];
        const agentId = team.find((m) => m.email === EMAIL.acmeAgent).id;
        const ownerId = team.find((m) => m.email === EMAIL.acmeOwner).id;
        const byViewer = await http(
          noMail.url,
          "POST",
          `/api/dashboard/team/${agentId}/password-reset`,
          { token: D.acme.viewer },
        );
        assertEquals(byViewer.status, 403);
        const byAdmin = await http(
          noMail.url,
          "POST",
          `/api/dashboard/team/${ownerId}/password-reset`,
          { token: D.acme.administrator },
        );
        assertEquals(byAdmin.status, 422);
        const issued = await http(
          noMail.url,
          "POST",
          `/api/dashboard/team/${agentId}/password-reset`,
          { token: D.acme.owner },
        );
        assertEquals(issued.status, 200, issued.text);
        assertOk(issued.body.link.includes("/inbox#/reset/"));
        const used = await post(noMail.url, "/api/dashboard/password/reset", {
          token: secretOf(issued.body.link),
          password: "team passphrase",
        });
        assertEquals(used.status, 200, used.text);
        assertEquals(
          (await post(noMail.url, "/api/agent/login", {
            email: EMAIL.acmeAgent,
            password: "team passphrase",
          })).status,
          200,
        );
      },
    );

    await t.step("the admin CLI's user:password sets a password or prints a link", async () => {
      const deps = {
        sql: noMail.deps.sql,
        appKey: noMail.deps.appKey,
        now: new Date(),
        baseUrl: noMail.url,
      };
      const set = await setUserPassword(deps, {
        email: EMAIL.acmeViewer,
        password: "cli passphrase",
        link: false,
      });
      assertEquals(set.password_set, true);
      assertEquals(
        (await http(noMail.url, "GET", "/api/agent/me", { token: T.acme.viewer.agent })).status,
        401,
      );
      assertEquals(
        (await post(noMail.url, "/api/dashboard/login", {
          email: EMAIL.acmeViewer,
          password: "cli passphrase",
        })).status,
        200,
      );
      const link = await setUserPassword(deps, { email: EMAIL.acmeViewer, link: true });
      const used = await post(noMail.url, "/api/dashboard/password/reset", {
        token: secretOf(String(link.link)),
        password: "cli passphrase 2",
      });
      assertEquals(used.status, 200, used.text);
    });

    await t.step("no audit row holds a password or a link", async () => {
      const dump = JSON.stringify([
        ...(await s.deps.sql`SELECT * FROM audit_log`),
        ...(await noMail.deps.sql`SELECT * FROM audit_log`),
      ]);
      for (const m of smtp.mails) {
        assertOk(!dump.includes(secretOf(m.text) ?? "x"), "a link is in the audit log");
      }
      for (const p of [PASSWORD, "reset passphrase 1", "team passphrase", "cli passphrase"]) {
        assertOk(!dump.includes(p), `the audit log holds "${p}"`);
      }
    });
  } finally {
    await s.stop();
    await noMail.stop();
    await smtp.stop();
  }
});
