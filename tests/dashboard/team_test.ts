/**
 * The dashboard's Team procedures over HTTP: invitations by e-mail (caught by
 * the SMTP sink) or as a link shown once; the link used once, refused after
 * expiry or a second use; the seat limit; roles, the last-owner rule,
 * suspension effective at once, removal; each role; another workspace 404.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startSmtpSink } from "../helpers/smtp_sink.ts";
import { D, dashboardSeed, ROLES } from "./dashboard_seed.ts";

const smtp = await startSmtpSink();
const withMail = await startTestServer({
  seed: dashboardSeed(),
  env: { SMTP_URL: smtp.url, TRUSTED_PROXIES: "127.0.0.1" },
});
const noMail = await startTestServer({
  seed: dashboardSeed(),
  env: { TRUSTED_PROXIES: "127.0.0.1" },
});
let ip = 1;
const fresh = () => ({ "x-forwarded-for": `203.0.113.${ip++}` });
const call = (url: string, method: string, path: string, token: string, body?: unknown) =>
  http(url, method, path, { token, ...(body === undefined ? {} : { body }) });
const secretOf = (link: string) => link.split("#/invitation/")[1]!;

Deno.test("dashboard team and invitations", serverTestOptions, async (t) => {
  try {
    await t.step(
      "an e-mailed invitation: the invitee sets a password and signs in to /inbox",
      async () => {
        const r = await call(
          withMail.url,
          "POST",
          "/api/dashboard/team/invitations",
          D.acme.owner,
          {
            email: "Sam@Acme.test",
            role: "agent",
          },
        );
        assertEquals(r.status, 201);
        assertEquals(r.body.emailed, true);
        assertEquals(r.body.link, null);
        const [mail] = await smtp.waitFor(1);
        assertEquals(mail!.to, ["sam@acme.test"]);
        const link = /https?:\/\/\S+#\/invitation\/\S+/.exec(mail!.text)![0];
        const token = secretOf(link);
        const read = await http(withMail.url, "POST", "/api/dashboard/invitation", {
          body: { token },
          headers: fresh(),
        });
        assertEquals(read.body, { workspace: "Acme Inc", email: "sam@acme.test", role: "agent" });
        const accept = await http(withMail.url, "POST", "/api/dashboard/invitation/accept", {
          body: { token, name: "Sam", password: "a new password" },
          headers: fresh(),
        });
        assertEquals(accept.status, 200);
        assertEquals(accept.body.sign_in_at, "/inbox");
        const login = await http(withMail.url, "POST", "/api/agent/login", {
          body: { email: "sam@acme.test", password: "a new password" },
          headers: fresh(),
        });
        assertEquals(login.status, 200);
        const again = await http(withMail.url, "POST", "/api/dashboard/invitation/accept", {
          body: { token, name: "Eve", password: "another password" },
          headers: fresh(),
        });
        assertEquals(again.status, 404);
      },
    );

    await t.step("without SMTP the link is in the answer; an expired link is refused", async () => {
      const r = await call(noMail.url, "POST", "/api/dashboard/team/invitations", D.acme.owner, {
        email: "late@acme.test",
        role: "viewer",
      });
      assertEquals(r.status, 201);
      assertEquals(r.body.emailed, false);
      assertMatch(r.body.link, /\/dashboard#\/invitation\//);
      await noMail.deps.sql`UPDATE invitations SET expires_at = now() - interval '1 second'
                             WHERE email = 'late@acme.test'`;
      const read = await http(noMail.url, "POST", "/api/dashboard/invitation", {
        body: { token: secretOf(r.body.link) },
        headers: fresh(),
      });
      assertEquals(read.status, 404);
      const team = await call(noMail.url, "GET", "/api/dashboard/team", D.acme.owner);
      assertEquals(
        (team.body.invitations as { email: string; state: string }[])
          .find((i) => i.email === "late@acme.test")?.state,
        "expired",
      );
    });

    await t.step("the seat limit: viewers take none, the seat after the last is 422", async () => {
      const before =
        (await call(noMail.url, "GET", "/api/dashboard/team", D.acme.owner)).body.seats;
      for (let i = before.used; i < before.limit; i++) {
        const ok = await call(noMail.url, "POST", "/api/dashboard/team/invitations", D.acme.owner, {
          email: `seat${i}@acme.test`,
          role: "agent",
        });
        assertEquals(ok.status, 201);
      }
      const over = await call(noMail.url, "POST", "/api/dashboard/team/invitations", D.acme.owner, {
        email: "one-more@acme.test",
        role: "agent",
      });
      assertEquals(over.status, 422);
      assertMatch(over.body.errors.role[0], /seats/);
      const viewer = await call(
        noMail.url,
        "POST",
        "/api/dashboard/team/invitations",
        D.acme.owner,
        {
          email: "just-looking@acme.test",
          role: "viewer",
        },
      );
      assertEquals(viewer.status, 201);
      const revoked = await call(
        noMail.url,
        "DELETE",
        `/api/dashboard/team/invitations/${viewer.body.invitation.id}`,
        D.acme.owner,
      );
      assertEquals(revoked.status, 200);
      const dup = await call(noMail.url, "POST", "/api/dashboard/team/invitations", D.acme.owner, {
        email: "agent@acme.test",
        role: "agent",
      });
      assertEquals(dup.status, 422);
      assertOk(dup.body.errors.email);
    });

    const members = async () =>
      (await call(withMail.url, "GET", "/api/dashboard/team", D.acme.owner)).body.members as {
        id: number;
        email: string;
        role: string;
        state: string;
      }[];

    await t.step("the last owner can be neither demoted, suspended nor removed", async () => {
      const owner = (await members()).find((m) => m.email === "owner@acme.test")!;
      const admin = D.acme.administrator;
      for (
        const [method, body] of [
          ["PATCH", { role: "agent" }],
          ["PATCH", { suspended: true }],
          ["DELETE", undefined],
        ] as const
      ) {
        const r = await call(withMail.url, method, `/api/dashboard/team/${owner.id}`, admin, body);
        assertEquals(r.status, 422, `${method} ${JSON.stringify(body)}`);
      }
      const self = await call(
        withMail.url,
        "PATCH",
        `/api/dashboard/team/${owner.id}`,
        D.acme.owner,
        {
          role: "agent",
        },
      );
      assertEquals(self.status, 422);
    });

    await t.step("suspension stops the member's tokens at once; a role changes", async () => {
      const agent = (await members()).find((m) => m.email === "agent@acme.test")!;
      const path = `/api/dashboard/team/${agent.id}`;
      assertEquals(
        (await call(withMail.url, "PATCH", path, D.acme.owner, { suspended: true })).status,
        200,
      );
      assertEquals(
        (await http(withMail.url, "GET", "/api/agent/me", { token: T.acme.agent.agent })).status,
        403,
      );
      assertEquals(
        (await call(withMail.url, "PATCH", path, D.acme.owner, { suspended: false })).status,
        200,
      );
      assertEquals(
        (await http(withMail.url, "GET", "/api/agent/me", { token: T.acme.agent.agent })).status,
        200,
      );
      const both = await call(withMail.url, "PATCH", path, D.acme.owner, {
        role: "agent",
        suspended: true,
      });
      assertEquals(both.status, 422);
      assertEquals(
        (await call(withMail.url, "PATCH", path, D.acme.owner, { role: "administrator" })).status,
        200,
      );
      assertEquals((await members()).find((m) => m.id === agent.id)?.role, "administrator");
      assertEquals(
        (await call(withMail.url, "PATCH", path, D.acme.owner, { role: "agent" })).status,
        200,
      );
    });

    await t.step("removal: the member's tokens and own canned replies go", async () => {
      const sam = (await members()).find((m) => m.email === "sam@acme.test")!;
      const login = await http(withMail.url, "POST", "/api/agent/login", {
        body: { email: "sam@acme.test", password: "a new password" },
        headers: fresh(),
      });
      const token = login.body.token as string;
      assertEquals(
        (await call(withMail.url, "DELETE", `/api/dashboard/team/${sam.id}`, D.acme.owner)).status,
        200,
      );
      assertEquals((await http(withMail.url, "GET", "/api/agent/me", { token })).status, 401);
      assertEquals((await members()).some((m) => m.id === sam.id), false);
    });

    await t.step("each role, and another workspace's members are 404", async () => {
      for (const [role, token] of ROLES) {
        const list = await call(withMail.url, "GET", "/api/dashboard/team", token);
        assertEquals(list.status, role === "agent" ? 403 : 200, role);
        const inv = await call(withMail.url, "POST", "/api/dashboard/team/invitations", token, {
          email: `from-${role}@acme.test`,
          role: "viewer",
        });
        assertEquals(inv.status, role === "owner" || role === "administrator" ? 201 : 403, role);
      }
      const viewer = (await members()).find((m) => m.email === "viewer@acme.test")!;
      const foreign = await call(
        withMail.url,
        "PATCH",
        `/api/dashboard/team/${viewer.id}`,
        D.globex.owner,
        {
          role: "agent",
        },
      );
      assertEquals(foreign.status, 404);
      assertEquals(
        (await call(withMail.url, "DELETE", `/api/dashboard/team/${viewer.id}`, D.globex.owner))
          .status,
        404,
      );
      const bad = await call(
        withMail.url,
        "POST",
        "/api/dashboard/team/invitations",
        D.acme.owner,
        {
          email: "not an address",
          role: "pilot",
        },
      );
      assertEquals(bad.status, 422);
      assertOk(bad.body.errors.email && bad.body.errors.role);
    });
  } finally {
    await withMail.stop();
    await noMail.stop();
    await smtp.stop();
  }
});
