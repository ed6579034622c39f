/**
 * Invitations that cannot get lost (issue 37, item 5), over HTTP on the real
 * server: a second invitation leaves the first one's link on the Team list
 * (for owners and administrators only) and it still works; inviting an
 * address again renews its invitation (old link refused, new one works)
 * instead of a 422; an invitation made before links were kept says so;
 * resending goes through the SMTP sink with the same link; accepting signs
 * the new member in where their role works and names the workspace; only an
 * owner makes an owner; every team action writes one audit row, and no row
 * holds a secret the test saw.
 */
import { assertEquals, assertMatch, assertOk as assert } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { http } from "../helpers/http.ts";
import { startSmtpSink } from "../helpers/smtp_sink.ts";
import { D, dashboardSeed } from "./dashboard_seed.ts";

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
const fresh = () => ({ "x-forwarded-for": `198.51.100.${ip++}` });
const call = (url: string, method: string, path: string, token: string, body?: unknown) =>
  http(url, method, path, { token, ...(body === undefined ? {} : { body }) });
const secretOf = (link: string) => link.split("#/invitation/")[1]!;

interface Listed {
  id: number;
  email: string;
  role: string;
  state: string;
  link: string | null;
  link_lost: boolean;
}
const invitations = async (url: string, token: string = D.acme.owner) =>
  (await call(url, "GET", "/api/dashboard/team", token)).body.invitations as Listed[];
const read = (url: string, link: string) =>
  http(url, "POST", "/api/dashboard/invitation", {
    body: { token: secretOf(link) },
    headers: fresh(),
  });
const invite = (url: string, email: string, role: string, token: string = D.acme.owner) =>
  call(url, "POST", "/api/dashboard/team/invitations", token, { email, role });

/** Every secret the test sees (links, tokens, passwords): none may reach the audit log. */
const secrets: string[] = [];

Deno.test("invitations that cannot get lost", serverTestOptions, async (t) => {
  try {
    let alexLink = "";
    await t.step("invite alex then vera: alex's link is still listed, and works", async () => {
      const alex = await invite(noMail.url, "alex@acme.test", "agent");
      assertEquals(alex.status, 201);
      assertEquals(alex.body.renewed, false);
      alexLink = alex.body.link;
      secrets.push(secretOf(alexLink));
      const vera = await invite(noMail.url, "vera@acme.test", "viewer");
      assertEquals(vera.status, 201);
      secrets.push(secretOf(vera.body.link));
      const listed = await invitations(noMail.url);
      assertEquals(listed.find((i) => i.email === "alex@acme.test")?.link, alexLink);
      assertEquals(listed.find((i) => i.email === "vera@acme.test")?.link, vera.body.link);
      assertEquals((await read(noMail.url, alexLink)).body, {
        workspace: "Acme Inc",
        email: "alex@acme.test",
        role: "agent",
      });
      // The administrator sees links too; a viewer sees the invitations without them.
      const byAdmin = await invitations(noMail.url, D.acme.administrator);
      assertEquals(byAdmin.find((i) => i.email === "alex@acme.test")?.link, alexLink);
      const byViewer = await invitations(noMail.url, D.acme.viewer);
      assert(byViewer.length >= 2);
      assertEquals(byViewer.every((i) => i.link === null), true);
      // At rest the secret is neither in clear nor only hashed: it is encrypted.
      const [row] = await noMail.deps.sql<{ secret_encrypted: string }[]>`
        SELECT secret_encrypted FROM invitations WHERE email = 'alex@acme.test'`;
      assert(row!.secret_encrypted && !row!.secret_encrypted.includes(secretOf(alexLink)));
    });

    await t.step("inviting alex again renews: old link refused, new one works", async () => {
      const before = (await invitations(noMail.url)).find((i) => i.email === "alex@acme.test")!;
      const again = await invite(noMail.url, "ALEX@acme.test", "administrator");
      assertEquals(again.status, 201);
      assertEquals(again.body.renewed, true);
      assertEquals(again.body.invitation.id, before.id);
      assertEquals(again.body.invitation.role, "administrator");
      secrets.push(secretOf(again.body.link));
      assert(again.body.link !== alexLink);
      assertEquals((await read(noMail.url, alexLink)).status, 404);
      assertEquals((await read(noMail.url, again.body.link)).body.role, "administrator");
      const mine = (await invitations(noMail.url)).filter((i) => i.email === "alex@acme.test");
      assertEquals(mine.length, 1);
      assertEquals(mine[0]!.link, again.body.link);
      const spent = await http(noMail.url, "POST", "/api/dashboard/invitation/accept", {
        body: { token: secretOf(alexLink), name: "Alex", password: "alex's password" },
        headers: fresh(),
      });
      assertEquals(spent.status, 404);
      alexLink = again.body.link;
    });

    await t.step("an invitation from before links were kept says renew", async () => {
      await noMail.deps.sql`UPDATE invitations SET secret_encrypted = NULL
                             WHERE email = 'vera@acme.test'`;
      const vera = (await invitations(noMail.url)).find((i) => i.email === "vera@acme.test")!;
      assertEquals([vera.link, vera.link_lost], [null, true]);
      const resend = await call(
        noMail.url,
        "POST",
        `/api/dashboard/team/invitations/${vera.id}/resend`,
        D.acme.owner,
      );
      assertEquals(resend.status, 503); // no SMTP here
      const renewed = await invite(noMail.url, "vera@acme.test", "viewer");
      assertEquals(renewed.body.renewed, true);
      secrets.push(secretOf(renewed.body.link));
      const after = (await invitations(noMail.url)).find((i) => i.email === "vera@acme.test")!;
      assertEquals([after.link, after.link_lost], [renewed.body.link, false]);
    });

    await t.step("resend through SMTP: the same link again", async () => {
      const r = await invite(withMail.url, "zoe@acme.test", "agent");
      assertEquals([r.status, r.body.emailed, r.body.link], [201, true, null]);
      const [first] = await smtp.waitFor(1);
      const link = /https?:\/\/\S+#\/invitation\/\S+/.exec(first!.text)![0];
      secrets.push(secretOf(link));
      const listed = (await invitations(withMail.url)).find((i) => i.email === "zoe@acme.test")!;
      assertEquals(listed.link, link);
      const resend = await call(
        withMail.url,
        "POST",
        `/api/dashboard/team/invitations/${listed.id}/resend`,
        D.acme.owner,
      );
      assertEquals(resend.status, 200);
      const mails = await smtp.waitFor(2);
      assertEquals(mails[1]!.to, ["zoe@acme.test"]);
      assert(mails[1]!.text.includes(link));
      const byViewer = await call(
        withMail.url,
        "POST",
        `/api/dashboard/team/invitations/${listed.id}/resend`,
        D.acme.viewer,
      );
      assertEquals(byViewer.status, 403);
      const foreign = await call(
        withMail.url,
        "POST",
        `/api/dashboard/team/invitations/${listed.id}/resend`,
        D.globex.owner,
      );
      assertEquals(foreign.status, 404);
    });

    await t.step("accepting signs the new member in and names the workspace", async () => {
      const admin = await http(noMail.url, "POST", "/api/dashboard/invitation/accept", {
        body: { token: secretOf(alexLink), name: "Alex", password: "alex's password" },
        headers: fresh(),
      });
      secrets.push("alex's password");
      assertEquals(admin.status, 200);
      assertEquals(admin.body.workspace, "Acme Inc");
      assertEquals(admin.body.sign_in_at, "/dashboard");
      assertEquals(admin.body.agent_session, null);
      const token = admin.body.dashboard_session.token as string;
      secrets.push(token.split("|")[1]!);
      const me = await http(noMail.url, "GET", "/api/dashboard/me", { token });
      assertEquals([me.status, me.body.user.email, me.body.company.name], [
        200,
        "alex@acme.test",
        "Acme Inc",
      ]);

      const zoe = (await smtp.waitFor(2))[0]!;
      const zoeLink = /https?:\/\/\S+#\/invitation\/\S+/.exec(zoe.text)![0];
      const agent = await http(withMail.url, "POST", "/api/dashboard/invitation/accept", {
        body: { token: secretOf(zoeLink), name: "Zoe", password: "zoe's password" },
        headers: fresh(),
      });
      assertEquals(agent.status, 200);
      assertEquals([agent.body.workspace, agent.body.sign_in_at], ["Acme Inc", "/inbox"]);
      assertEquals(agent.body.dashboard_session, null);
      const agentToken = agent.body.agent_session.token as string;
      secrets.push(agentToken.split("|")[1]!);
      const inbox = await http(withMail.url, "GET", "/api/agent/me", { token: agentToken });
      assertEquals([inbox.status, inbox.body.user.email], [200, "zoe@acme.test"]);
      // The accepted invitation leaves the list, and its secret leaves the table.
      assertEquals(
        (await invitations(withMail.url)).some((i) => i.email === "zoe@acme.test"),
        false,
      );
      const [row] = await withMail.deps.sql<{ secret_encrypted: string | null }[]>`
        SELECT secret_encrypted FROM invitations WHERE email = 'zoe@acme.test'`;
      assertEquals(row!.secret_encrypted, null);
    });

    await t.step("only an owner makes an owner", async () => {
      const byAdmin = await invite(noMail.url, "boss@acme.test", "owner", D.acme.administrator);
      assertEquals(byAdmin.status, 403);
      const team = (await call(noMail.url, "GET", "/api/dashboard/team", D.acme.owner)).body;
      const alex = (team.members as { id: number; email: string }[])
        .find((m) => m.email === "alex@acme.test")!;
      const promote = await call(
        noMail.url,
        "PATCH",
        `/api/dashboard/team/${alex.id}`,
        D.acme.administrator,
        { role: "owner" },
      );
      assertEquals(promote.status, 403);
      const byOwner = await call(
        noMail.url,
        "PATCH",
        `/api/dashboard/team/${alex.id}`,
        D.acme.owner,
        {
          role: "owner",
        },
      );
      assertEquals(byOwner.status, 200);
      // An administrator cannot demote, suspend or remove that owner either.
      const demote = await call(
        noMail.url,
        "PATCH",
        `/api/dashboard/team/${alex.id}`,
        D.acme.administrator,
        { role: "agent" },
      );
      assertEquals(demote.status, 403);
    });

    await t.step("each team action writes one audit row, none holds a secret", async () => {
      const url = noMail.url;
      const team = (await call(url, "GET", "/api/dashboard/team", D.acme.owner)).body;
      const alex = (team.members as { id: number; email: string }[])
        .find((m) => m.email === "alex@acme.test")!;
      const path = `/api/dashboard/team/${alex.id}`;
      assertEquals((await call(url, "PATCH", path, D.acme.owner, { role: "agent" })).status, 200);
      assertEquals((await call(url, "PATCH", path, D.acme.owner, { suspended: true })).status, 200);
      assertEquals(
        (await call(url, "PATCH", path, D.acme.owner, { suspended: false })).status,
        200,
      );
      const vera = (await invitations(url)).find((i) => i.email === "vera@acme.test")!;
      assertEquals(
        (await call(url, "DELETE", `/api/dashboard/team/invitations/${vera.id}`, D.acme.owner))
          .status,
        200,
      );
      assertEquals((await call(url, "DELETE", path, D.acme.owner)).status, 200);

      const rows = await noMail.deps.sql<
        {
          action: string;
          actor_label: string;
          ip: string | null;
          target_type: string;
          target_id: string;
          details: Record<string, unknown>;
        }[]
      >`SELECT action, actor_label, ip, target_type, target_id, details FROM audit_log
         WHERE action LIKE 'team.%' ORDER BY id`;
      const count = (action: string) => rows.filter((r) => r.action === action).length;
      assertEquals(count("team.invitation_sent"), 4); // alex, vera, alex renewed, vera renewed
      assertEquals(count("team.invitation_accepted"), 1);
      assertEquals(count("team.invitation_revoked"), 1);
      assertEquals(count("team.role_changed"), 2); // owner, then agent
      assertEquals(count("team.member_suspended"), 1);
      assertEquals(count("team.member_reinstated"), 1);
      assertEquals(count("team.member_removed"), 1);
      const renewed = rows.filter((r) => r.action === "team.invitation_sent" && r.details.renewed);
      assertEquals(renewed.length, 2);
      const change = rows.filter((r) => r.action === "team.role_changed").at(-1)!;
      assertEquals(change.details, { email: "alex@acme.test", from: "owner", to: "agent" });
      assertEquals([change.target_type, change.target_id], ["user", String(alex.id)]);
      assertMatch(change.actor_label, /owner@acme\.test/);
      const accepted = rows.find((r) => r.action === "team.invitation_accepted")!;
      assertMatch(accepted.actor_label, /alex@acme\.test/);
      assert(accepted.ip?.startsWith("198.51.100."), `ip ${accepted.ip}`);
      const sentOnMail = await withMail.deps.sql<{ details: Record<string, unknown> }[]>`
        SELECT details FROM audit_log WHERE action = 'team.invitation_sent'
         AND details->>'email' = 'zoe@acme.test' ORDER BY id`;
      assertEquals(sentOnMail.map((r) => r.details.resent ?? false), [false, true]);

      for (const server of [noMail, withMail]) {
        const [dump] = await server.deps.sql<{ text: string }[]>`
          SELECT coalesce(string_agg(a::text, E'\n'), '') AS text FROM audit_log a`;
        for (const secret of secrets) {
          assert(!dump!.text.includes(secret), `the audit log holds a secret: ${secret}`);
        }
      }
      assert(secrets.length >= 8);
    });

    await t.step("a workspace that requires two-factor gives no session on joining", async () => {
      await noMail.deps.sql`UPDATE workspaces SET require_two_factor = true WHERE slug = 'acme'`;
      try {
        const sent = await invite(noMail.url, "kim@acme.test", "viewer");
        assertEquals(sent.status, 201, sent.text);
        const joined = await http(noMail.url, "POST", "/api/dashboard/invitation/accept", {
          body: { token: secretOf(sent.body.link), name: "Kim", password: "kim's password" },
          headers: fresh(),
        });
        assertEquals(joined.status, 200, joined.text);
        assertEquals(
          [joined.body.two_factor_setup_required, joined.body.dashboard_session],
          [true, null],
        );
        assertEquals([joined.body.agent_session, joined.body.sign_in_at], [null, "/dashboard"]);
        // Signing in with the new password is where the second factor is set up.
        const login = await http(noMail.url, "POST", "/api/dashboard/login", {
          body: { email: "kim@acme.test", password: "kim's password" },
          headers: fresh(),
        });
        assertEquals(login.status, 403, login.text);
        assertEquals(login.body.two_factor_setup_required, true);
      } finally {
        await noMail.deps.sql`UPDATE workspaces SET require_two_factor = false WHERE slug = 'acme'`;
      }
    });
  } finally {
    await withMail.stop();
    await noMail.stop();
    await smtp.stop();
  }
});
