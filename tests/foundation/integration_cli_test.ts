/**
 * integration:link / integration:unlink through the admin CLI, in process:
 * validation naming the option, the credential read from an environment
 * variable, encrypted at rest, and the same seed applied twice changes nothing.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions } from "../helpers/test_server.ts";
import { cli } from "../helpers/admin_cli.ts";
import { openAdmin } from "../../cli/open_admin.ts";
import { createWorkspace } from "../../domain/admin/create_workspace.ts";
import { applySeed } from "../../domain/seed/apply_seed.ts";
import { createStorage, serverEnv } from "./server_with_deps.ts";

Deno.test("admin CLI: link and unlink customer-context services", serverTestOptions, async (t) => {
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

    await t.step("a Shopify store: shop domain and token, stored encrypted", async () => {
      const r = await cli([
        "integration:link",
        "--workspace",
        "initech",
        "--service",
        "storefront",
        "--shop",
        "https://Initech.myshopify.com/",
        "--credential",
        "shpat_secret_abcd",
      ], env);
      assertEquals(r.code, 0, r.err);
      assertEquals(JSON.parse(r.out), {
        workspace: "initech",
        service: "storefront",
        account: "initech.myshopify.com",
        last_four: "abcd",
      });
    });

    await t.step("Stripe, with the key read from an environment variable", async () => {
      Deno.env.set("PARLEY_TEST_STRIPE_KEY", "sk_live_from_env_wxyz");
      try {
        const r = await cli([
          "integration:link",
          "--workspace",
          "initech",
          "--service",
          "billing",
          "--credential-env",
          "PARLEY_TEST_STRIPE_KEY",
        ], env);
        assertEquals(r.code, 0, r.err);
        assertEquals(JSON.parse(r.out).last_four, "wxyz");
      } finally {
        Deno.env.delete("PARLEY_TEST_STRIPE_KEY");
      }
      const admin = await openAdmin(env);
      try {
        const rows = await admin.deps.sql<{ service: string; ciphertext: string }[]>`
          SELECT service, ciphertext FROM workspace_integrations ORDER BY service`;
        assertEquals(rows.map((r) => r.service), ["billing", "storefront"]);
        assertOk(
          !rows.some((r) => r.ciphertext.includes("sk_live") || r.ciphertext.includes("shpat")),
        );
      } finally {
        await admin.close();
      }
    });

    await t.step("bad input names the option", async () => {
      const cases: [string[], string][] = [
        [["--service", "storefront", "--credential", "x"], "shop"],
        [["--service", "crm", "--credential", "x"], "service"],
        [["--service", "billing"], "credential"],
        [["--service", "billing", "--credential-env", "PARLEY_UNSET_VAR"], "credential-env"],
      ];
      for (const [args, field] of cases) {
        const r = await cli(["integration:link", "--workspace", "initech", ...args], env);
        assertEquals(r.code, 1, args.join(" "));
        assertOk(JSON.parse(r.err).errors[field], `${field}: ${r.err}`);
      }
      const nows = await cli(
        ["integration:link", "--workspace", "nope", "--service", "billing", "--credential", "x"],
        env,
      );
      assertEquals(nows.code, 1);
    });

    await t.step("unlink removes the service; unlinking again says so", async () => {
      const r = await cli(
        ["integration:unlink", "--workspace", "initech", "--service", "billing"],
        env,
      );
      assertEquals(JSON.parse(r.out), { workspace: "initech", service: "billing", unlinked: true });
      const again = await cli(
        ["integration:unlink", "--workspace", "initech", "--service", "billing"],
        env,
      );
      assertEquals(JSON.parse(again.out).unlinked, false);
    });

    await t.step("the seed links services; applying it twice changes nothing", async () => {
      const admin = await openAdmin(env);
      try {
        const seed = {
          workspaces: [{
            name: "Initech",
            slug: "initech",
            plan: "free",
            integrations: {
              storefront: { shop: "initech.myshopify.com", access_token: "shpat_seeded" },
              billing: { secret_key: "sk_test_seeded" },
            },
          }],
        };
        await applySeed(admin.deps, seed);
        const first = await admin.deps.sql`
          SELECT service, account, ciphertext FROM workspace_integrations ORDER BY service`;
        await applySeed(admin.deps, seed);
        const second = await admin.deps.sql`
          SELECT service, account, ciphertext FROM workspace_integrations ORDER BY service`;
        assertEquals(second, first);
        assertEquals(first.map((r) => r.service), ["billing", "storefront"]);
      } finally {
        await admin.close();
      }
    });
  } finally {
    await storage.drop();
  }
});
