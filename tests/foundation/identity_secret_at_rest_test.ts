/**
 * A workspace's identity secret is stored encrypted under APP_KEY: no column
 * holds it in plain text, identity tokens signed with it still verify, a
 * secret stored in plain text before this rule is encrypted at the next start,
 * and re-applying the seed changes nothing. Push subscription keys stored in
 * plain text before their rule (migration 0107) are encrypted the same way.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { standardSeed } from "../helpers/fixtures.ts";
import { serverTestOptions } from "../helpers/test_server.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { postStream, signJwt } from "../widget/widget_client.ts";
import { createStorage, startOn } from "./server_with_deps.ts";
import type { Sql } from "../../db/client.ts";
import { openPushKeys } from "../../domain/notifications/push_keys.ts";

const SECRET = "acme-identity-secret";

async function acmeRow(sql: Sql): Promise<Record<string, unknown>> {
  const [row] = await sql`SELECT * FROM workspaces WHERE slug = 'acme'`;
  return row as Record<string, unknown>;
}

async function verifiedVisitor(url: string): Promise<unknown> {
  const token = await signJwt({
    sub: "user-7",
    name: "Ada",
    exp: Math.floor(Date.now() / 1000) + 600,
  }, SECRET);
  const r = await postStream(url, "acme-helper", {
    visitor_id: `v-${crypto.randomUUID()}`,
    message: "Hello",
    identity: token,
  });
  assertEquals(r.status, 200, r.text);
  return r.events[0]!.data.conversation_id;
}

Deno.test("identity secret at rest", serverTestOptions, async (t) => {
  const fake = startFakeAi({ reply: "Hi." });
  const storage = await createStorage();
  const env = { AI_BASE_URL: fake.baseUrl };
  let s = await startOn(storage, { seed: standardSeed(), env });
  try {
    await t.step("the seeded secret is stored encrypted, and tokens still verify", async () => {
      const row = await acmeRow(s.deps.sql);
      assertOk(!JSON.stringify(row).includes(SECRET), "plain text in the workspace row");
      assertOk(typeof row.identity_secret_ciphertext === "string");
      assertEquals(row.legacy_identity_secret, null);
      const id = await verifiedVisitor(s.url);
      const [conv] = await s.deps
        .sql`SELECT meta FROM conversations WHERE public_id = ${id as string}`;
      assertEquals(conv!.meta.identity, { sub: "user-7", verified: true });
    });

    await t.step("re-applying the seed keeps the same ciphertext", async () => {
      const before = (await acmeRow(s.deps.sql)).identity_secret_ciphertext;
      await s.stop();
      s = await startOn(storage, { seed: standardSeed(), env });
      assertEquals((await acmeRow(s.deps.sql)).identity_secret_ciphertext, before);
    });

    await t.step("a secret left in plain text is encrypted at the next start", async () => {
      await s.deps.sql`UPDATE workspaces SET legacy_identity_secret = ${SECRET},
        identity_secret_ciphertext = NULL WHERE slug = 'acme'`;
      await s.stop();
      s = await startOn(storage, { env });
      const row = await acmeRow(s.deps.sql);
      assertEquals(row.legacy_identity_secret, null);
      assertOk(!JSON.stringify(row).includes(SECRET), "plain text left behind");
      await verifiedVisitor(s.url);
    });

    await t.step(
      "push subscription keys left in plain text are encrypted at the next start",
      async () => {
        const [user] = await s.deps.sql<{ id: number; workspace_id: number }[]>`
        SELECT id, workspace_id FROM users WHERE email = 'agent@acme.test'`;
        const keys = { p256dh: "BLegacyPlainP256dhKey", auth: "legacy-plain-auth" };
        await s.deps.sql`
        INSERT INTO push_subscriptions (workspace_id, user_id, endpoint, legacy_p256dh, legacy_auth)
        VALUES (${user!.workspace_id}, ${user!.id}, 'https://push.example.com/legacy',
                ${keys.p256dh}, ${keys.auth})`;
        await s.stop();
        s = await startOn(storage, { env });
        const [row] = await s.deps.sql<{ keys_ciphertext: string }[]>`
        SELECT * FROM push_subscriptions WHERE endpoint = 'https://push.example.com/legacy'`;
        const stored = JSON.stringify(row);
        assertOk(!stored.includes(keys.p256dh) && !stored.includes(keys.auth), stored);
        assertEquals(await openPushKeys(s.deps.appKey, row!.keys_ciphertext), keys);
      },
    );
  } finally {
    await s.stop();
    await storage.drop();
    await fake.close();
  }
});
