/**
 * Webhook endpoints from the admin CLI (in process) and the seed file: the
 * secret printed once, the https rule naming the option, rotation, removal;
 * a seeded endpoint keyed by url, applied twice without a duplicate.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions } from "../helpers/test_server.ts";
import { cli } from "../helpers/admin_cli.ts";
import { openAdmin } from "../../cli/open_admin.ts";
import { createWorkspace } from "../../domain/admin/create_workspace.ts";
import { applySeed } from "../../domain/seed/apply_seed.ts";
import { decryptText } from "../../domain/auth/secrets.ts";
import { createStorage, serverEnv } from "../foundation/server_with_deps.ts";

const SEEDED_SECRET = "whsec_" + btoa("0123456789abcdef0123456789abcdef");

Deno.test(
  "webhook endpoints from the admin CLI and the seed file",
  serverTestOptions,
  async (t) => {
    const storage = await createStorage();
    const env = serverEnv(storage);
    try {
      const admin = await openAdmin(env);
      try {
        await createWorkspace(admin.deps, {
          name: "Initech",
          slug: "initech",
          plan: "free",
          portalEnabled: false,
        });
      } finally {
        await admin.close();
      }
      let id = 0;
      await t.step("webhook:add prints the secret once; webhook:list never", async () => {
        const r = await cli([
          "webhook:add",
          "--workspace",
          "initech",
          "--url",
          "https://crm.example.com/hooks",
          "--events",
          "conversation.created, lead.captured",
        ], env);
        assertEquals(r.code, 0, r.err);
        const out = JSON.parse(r.out);
        assertOk(out.secret.startsWith("whsec_"));
        assertEquals(out.events, ["conversation.created", "lead.captured"]);
        id = out.id;
        const list = await cli(["webhook:list", "--workspace", "initech"], env);
        assertEquals(list.code, 0, list.err);
        assertEquals(JSON.parse(list.out).length, 1);
        assertOk(!list.out.includes(out.secret.slice(6)));
      });

      await t.step(
        "plain http and unknown event types are refused, naming the option",
        async () => {
          const http = await cli([
            "webhook:add",
            "--workspace",
            "initech",
            "--url",
            "http://crm.example.com/hooks",
            "--events",
            "lead.captured",
          ], env);
          assertEquals(http.code, 1);
          assertOk(JSON.parse(http.err).errors.url, http.err);
          const kind = await cli([
            "webhook:add",
            "--workspace",
            "initech",
            "--url",
            "https://crm.example.com/x",
            "--events",
            "lead.lost",
          ], env);
          assertEquals(kind.code, 1);
          assertOk(JSON.parse(kind.err).errors.events, kind.err);
        },
      );

      await t.step("webhook:rotate prints a new secret; webhook:remove deletes", async () => {
        const r = await cli(
          ["webhook:rotate", "--workspace", "initech", "--id", String(id), "--overlap-hours", "2"],
          env,
        );
        assertEquals(r.code, 0, r.err);
        const out = JSON.parse(r.out);
        assertOk(out.secret.startsWith("whsec_"));
        assertOk(out.previous_secret_expires_at !== null);
        const rm = await cli(["webhook:remove", "--workspace", "initech", "--id", String(id)], env);
        assertEquals(rm.code, 0, rm.err);
        const again = await cli(
          ["webhook:remove", "--workspace", "initech", "--id", String(id)],
          env,
        );
        assertEquals(again.code, 1);
      });

      await t.step(
        "a seeded endpoint, applied twice, exists once with the seeded secret",
        async () => {
          const seed = {
            workspaces: [{
              name: "Initech",
              slug: "initech",
              webhooks: [{
                url: "https://crm.example.com/seeded",
                events: ["message.created"],
                secret: SEEDED_SECRET,
              }],
            }],
          };
          const admin = await openAdmin(env);
          try {
            await applySeed(admin.deps, seed);
            await applySeed(admin.deps, seed);
            const rows = await admin.deps.sql<{ secret_encrypted: string; events: string[] }[]>`
          SELECT secret_encrypted, events FROM webhook_endpoints
           WHERE url = 'https://crm.example.com/seeded'`;
            assertEquals(rows.length, 1);
            assertEquals(rows[0]!.events, ["message.created"]);
            assertEquals(
              await decryptText(admin.deps.appKey, rows[0]!.secret_encrypted),
              SEEDED_SECRET,
            );
            let refused = false;
            try {
              await applySeed(admin.deps, {
                workspaces: [{
                  name: "Initech",
                  slug: "initech",
                  webhooks: [{ url: "https://x.example.com", events: ["nope"], secret: "x" }],
                }],
              });
            } catch (err) {
              refused = (err as { errors?: Record<string, unknown> }).errors !== undefined;
            }
            assertOk(refused, "an invalid webhook entry is refused");
          } finally {
            await admin.close();
          }
        },
      );
    } finally {
      await storage.drop();
    }
  },
);
