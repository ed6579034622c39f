/**
 * The admin CLI and its domain actions, on the same storage the server then
 * opens: what the CLI creates, the server honours.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { http } from "../helpers/http.ts";
import { serverTestOptions } from "../helpers/test_server.ts";
import { cli } from "../helpers/admin_cli.ts";
import { openAdmin } from "../../cli/open_admin.ts";
import { createWorkspace } from "../../domain/admin/create_workspace.ts";
import { createUser } from "../../domain/admin/create_user.ts";
import { createToken, MAX_ACTIVE_TOKENS } from "../../domain/admin/create_token.ts";
import { revokeToken } from "../../domain/admin/revoke_token.ts";
import { createChatbot } from "../../domain/admin/create_chatbot.ts";
import { createTag } from "../../domain/admin/create_tag.ts";
import { createCanned } from "../../domain/admin/create_canned.ts";
import { setUserSuspended } from "../../domain/admin/set_user_suspended.ts";
import { setWorkspaceSuspended } from "../../domain/admin/set_workspace_suspended.ts";
import { applySeedFile } from "../../domain/admin/apply_seed_file.ts";
import { Conflict, Invalid, NotFound } from "../../domain/errors.ts";
import { createStorage, serverEnv, startOn } from "./server_with_deps.ts";

async function rejects(fn: () => Promise<unknown>, kind: new (...a: never[]) => Error) {
  try {
    await fn();
  } catch (err) {
    assertOk(err instanceof kind, `expected ${kind.name}, got ${err}`);
    return err as Error;
  }
  throw new Error(`expected ${kind.name}, nothing thrown`);
}

Deno.test("admin CLI: one object at a time, seen by the server", serverTestOptions, async (t) => {
  const storage = await createStorage();
  const env = serverEnv(storage);
  let cliToken = "";
  let spareTokenId = 0;
  try {
    const admin = await openAdmin(env);
    const deps = admin.deps;
    try {
      await t.step("workspace:create, and a taken slug is a Conflict", async () => {
        const ws = await createWorkspace(deps, {
          name: "Initech",
          slug: "initech",
          plan: "free",
          portalEnabled: true,
        });
        assertEquals([ws.slug, ws.plan, ws.portal_enabled], ["initech", "free", true]);
        await rejects(
          () =>
            createWorkspace(deps, {
              name: "X",
              slug: "initech",
              plan: "free",
              portalEnabled: false,
            }),
          Conflict,
        );
        const bad = await rejects(
          () =>
            createWorkspace(deps, {
              name: "X",
              slug: "Bad Slug",
              plan: "free",
              portalEnabled: false,
            }),
          Invalid,
        ) as Invalid;
        assertEquals(Object.keys(bad.errors), ["slug"]);
      });

      await t.step("user:create generates a password when none is given", async () => {
        const u = await createUser(deps, {
          workspace: "initech",
          name: "Peter",
          email: "Peter@Initech.test",
          role: "owner",
        });
        assertEquals([u.email, u.role], ["peter@initech.test", "owner"]);
        assertMatch(u.password ?? "", /^[A-Za-z0-9_-]{16}$/);
        await rejects(
          () =>
            createUser(deps, { workspace: "initech", name: "P", email: u.email, role: "agent" }),
          Conflict,
        );
        await rejects(
          () =>
            createUser(deps, { workspace: "nowhere", name: "P", email: "x@y.z", role: "agent" }),
          NotFound,
        );
        const role = await rejects(
          () => createUser(deps, { workspace: "initech", name: "P", email: "a@b.c", role: "boss" }),
          Invalid,
        ) as Invalid;
        assertEquals(Object.keys(role.errors), ["role"]);
      });

      await t.step("token:create allows 20 active settings tokens per account", async () => {
        const issued = [];
        for (let i = 0; i < MAX_ACTIVE_TOKENS; i++) {
          issued.push(await createToken(deps, { email: "peter@initech.test", name: `t${i}` }));
        }
        assertEquals(issued[0]!.ability, "api");
        const over = await rejects(
          () => createToken(deps, { email: "peter@initech.test", name: "one too many" }),
          Invalid,
        );
        assertMatch(over.message, /already has 20 active api tokens/);
        // Another ability has its own allowance; a revoked token frees a slot.
        await createToken(deps, { email: "peter@initech.test", name: "p", ability: "portal" });
        await revokeToken(deps, { id: issued[0]!.id });
        spareTokenId = issued[1]!.id;
        await createToken(deps, { email: "peter@initech.test", name: "after revoke" });
        await rejects(() => revokeToken(deps, { id: 999_999 }), NotFound);
      });

      await t.step("chatbot:create, tag:create, canned:create", async () => {
        const bot = await createChatbot(deps, {
          workspace: "initech",
          name: "TPS Bot",
          publicKey: "tps-bot",
        });
        assertEquals([bot.public_key, bot.is_active, bot.provider], [
          "tps-bot",
          true,
          "provider_1",
        ]);
        await rejects(
          () => createChatbot(deps, { workspace: "initech", name: "Again", publicKey: "tps-bot" }),
          Conflict,
        );
        const generated = await createChatbot(deps, { workspace: "initech", name: "Second" });
        assertMatch(generated.public_key, /^bot_[A-Za-z0-9]+$/);
        const tag = await createTag(deps, { workspace: "initech", name: "tps", color: "#123456" });
        const again = await createTag(deps, {
          workspace: "initech",
          name: "tps",
          color: "#654321",
        });
        assertEquals([again.id, again.color], [tag.id, "#654321"]);
        const canned = await createCanned(deps, {
          workspace: "initech",
          title: "Cover sheet",
          body: "Did you get the memo?",
          owner: "peter@initech.test",
        });
        assertEquals(canned.owner, "peter@initech.test");
      });

      await t.step("seed:apply twice reports the same workspaces", async () => {
        const file = `${storage.dataDir}/cli-seed.json`;
        await Deno.writeTextFile(
          file,
          JSON.stringify({
            workspaces: [{ name: "Seeded", slug: "seeded", tags: [{ name: "a" }] }],
          }),
        );
        const first = await applySeedFile(deps, file);
        const second = await applySeedFile(deps, file);
        assertEquals(second, first);
        await rejects(() => applySeedFile(deps, `${storage.dataDir}/missing.json`), Invalid);
      });
    } finally {
      await admin.close();
    }

    await t.step("the CLI prints JSON, and errors on stderr with exit code 1", async () => {
      const full = await cli(["token:create", "--email", "peter@initech.test", "--name", "x"], env);
      assertEquals(full.code, 1);
      assertMatch(JSON.parse(full.err).error, /already has 20 active api tokens/);
      const revoked = await cli(["token:revoke", "--id", String(spareTokenId)], env);
      assertEquals([revoked.code, JSON.parse(revoked.out).revoked], [0, true]);
      const ok = await cli(
        ["token:create", "--email", "peter@initech.test", "--name", "from the cli"],
        env,
      );
      assertEquals(ok.code, 0, ok.err);
      const printed = JSON.parse(ok.out);
      assertEquals([printed.name, printed.ability], ["from the cli", "api"]);
      cliToken = printed.token;

      const missing = await cli(["workspace:create", "--slug", "x"], env);
      assertEquals(missing.code, 1);
      assertEquals(JSON.parse(missing.err).errors, { name: ["The --name option is required."] });
      const unknown = await cli(["workspace:explode"], env);
      assertEquals(unknown.code, 1);
      assertMatch(JSON.parse(unknown.err).error, /Unknown command/);
      const help = await cli(["help"], env);
      assertEquals(help.code, 0);
      assertMatch(help.out, /token:revoke/);
    });

    await t.step("lists and provider keys: JSON out, no secrets, one-line errors", async () => {
      const workspaces = await cli(["workspace:list"], env);
      assertEquals(workspaces.code, 0, workspaces.err);
      const initech = JSON.parse(workspaces.out).find((w: { slug: string }) =>
        w.slug === "initech"
      );
      assertEquals([initech.plan, initech.suspended, initech.users >= 1], ["free", false, true]);

      const users = JSON.parse((await cli(["user:list", "--workspace", "initech"], env)).out);
      assertOk(users.some((u: { email: string }) => u.email === "peter@initech.test"));
      assertOk(users.every((u: Record<string, unknown>) => !("password_hash" in u)));

      const tokens = await cli(["token:list", "--email", "peter@initech.test"], env);
      const listed = JSON.parse(tokens.out);
      assertEquals(listed.find((x: { id: number }) => x.id === spareTokenId).state, "revoked");
      assertOk(
        listed.some((x: { name: string; state: string }) =>
          x.name === "from the cli" && x.state === "active"
        ),
      );
      assertOk(!tokens.out.includes(cliToken.split("|")[1]!), "no token text is printed");
      assertOk(!/secret_hash/.test(tokens.out));

      const bots = JSON.parse((await cli(["chatbot:list", "--workspace", "initech"], env)).out);
      assertOk(bots.some((b: { public_key: string }) => b.public_key === "tps-bot"));

      // The README promises lists of what tag:create and canned:create made.
      const tags = await cli(["tag:list", "--workspace", "initech"], env);
      assertEquals(tags.code, 0, tags.err);
      assertEquals(
        JSON.parse(tags.out).map((
          t: { name: string; color: string; workspace: string },
        ) => [t.workspace, t.name, t.color]),
        [["initech", "tps", "#654321"]],
      );
      const canned = await cli(["canned:list", "--workspace", "initech"], env);
      assertEquals(canned.code, 0, canned.err);
      const reply = JSON.parse(canned.out).find((c: { title: string }) =>
        c.title === "Cover sheet"
      );
      assertEquals([reply.body, reply.owner, reply.use_count], [
        "Did you get the memo?",
        "peter@initech.test",
        0,
      ]);

      const set = await cli(["key:set", "initech", "provider_1", "sk-cli-secret-9876"], env);
      assertEquals(set.code, 0, set.err);
      assertEquals(JSON.parse(set.out), {
        workspace: "initech",
        provider: "provider_1",
        last_four: "9876",
        configured: true,
      });
      const keys = await cli(["key:list", "--workspace", "initech"], env);
      assertOk(!keys.out.includes("sk-cli-secret"), "the key itself is never printed");
      const first = JSON.parse(keys.out)[0];
      assertEquals([first.provider, first.configured, first.last_four], [
        "provider_1",
        true,
        "9876",
      ]);

      const badProvider = await cli(["key:set", "initech", "provider_9", "sk-x"], env);
      assertEquals(badProvider.code, 1);
      assertEquals(badProvider.err.split("\n").length, 1, "one line");
      assertEquals(JSON.parse(badProvider.err).errors, {
        provider: ["The selected provider is invalid."],
      });
      const noWorkspace = await cli(["key:set", "nowhere", "provider_1", "sk-x"], env);
      assertEquals(JSON.parse(noWorkspace.err), { error: 'No workspace with slug "nowhere".' });
      const missingKey = await cli(["key:set", "initech", "provider_1"], env);
      assertEquals(missingKey.code, 1);
      assertMatch(JSON.parse(missingKey.err).error, /<api_key> argument is required/);

      const removed = await cli(["key:delete", "initech", "provider_4"], env);
      assertEquals(
        JSON.parse(removed.out).message,
        "No Mistral AI key was stored; nothing to remove.",
      );
    });

    await t.step("the server honours what the CLI wrote, suspension included", async () => {
      const s = await startOn(storage);
      try {
        const me = await http(s.url, "GET", "/api/v1/me", { token: cliToken });
        assertEquals([me.status, me.body.company.slug], [200, "initech"]);
        const adminDeps = { sql: s.deps.sql, appKey: s.deps.appKey, now: new Date() };
        await setUserSuspended(adminDeps, { email: "peter@initech.test", suspended: true });
        assertEquals((await http(s.url, "GET", "/api/v1/me", { token: cliToken })).status, 403);
        await setUserSuspended(adminDeps, { email: "peter@initech.test", suspended: false });
        await setWorkspaceSuspended(adminDeps, { slug: "initech", suspended: true });
        assertEquals((await http(s.url, "GET", "/api/v1/me", { token: cliToken })).status, 403);
        await setWorkspaceSuspended(adminDeps, { slug: "initech", suspended: false });
        assertEquals((await http(s.url, "GET", "/api/v1/me", { token: cliToken })).status, 200);
      } finally {
        await s.stop();
      }
    });
  } finally {
    await storage.drop();
  }
});
