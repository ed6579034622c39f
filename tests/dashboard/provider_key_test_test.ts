/**
 * "Test" on the Provider keys screen: one minimal call through the provider
 * client, against the fake AI (AI_BASE_URL), with the key typed in (before
 * saving: that key is sent, nothing is stored) or the stored one; the outcome
 * in words (works, refused with its status, unreachable), never a 500, never
 * the key; no key anywhere; an agent 403, an unknown provider 422.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { D, dashboardSeed } from "./dashboard_seed.ts";

const ai = startFakeAi();
const s = await startTestServer({ seed: dashboardSeed(), env: { AI_BASE_URL: ai.baseUrl } });
const call = (method: string, path: string, token: string, body?: unknown) =>
  http(s.url, method, `/api/dashboard${path}`, { token, ...(body === undefined ? {} : { body }) });
const TYPED = "sk-typed-0123456789abcd";
const STORED = "sk-stored-9876543210wxyz";

Deno.test("test a provider key", serverTestOptions, async (t) => {
  try {
    await t.step("a typed key is sent as it is, before saving, and nothing is stored", async () => {
      ai.requests.length = 0;
      const r = await call("POST", "/keys/provider_4/test", D.acme.owner, { api_key: TYPED });
      assertEquals(r.status, 200, r.text);
      assertEquals(r.body, { ok: true, message: "The key works." });
      assertEquals(ai.requests.length, 1);
      assertEquals(ai.requests[0]!.authorization, `Bearer ${TYPED}`);
      const keys = await call("GET", "/keys", D.acme.owner);
      const row = keys.body.data.find((k: { provider: string }) => k.provider === "provider_4");
      assertEquals(row.configured, false);
    });

    await t.step("without a key: the stored one is tested", async () => {
      const put = await call("PUT", "/keys/provider_4", D.acme.owner, { api_key: STORED });
      assertEquals(put.status, 200, put.text);
      ai.requests.length = 0;
      const r = await call("POST", "/keys/provider_4/test", D.acme.owner, {});
      assertEquals(r.body, { ok: true, message: "The key works." });
      assertEquals(ai.requests[0]!.authorization, `Bearer ${STORED}`);
    });

    await t.step("a refused key says so with the status, not a 500", async () => {
      ai.mode = "unauthorized";
      const typed = await call("POST", "/keys/provider_4/test", D.acme.owner, { api_key: TYPED });
      assertEquals(typed.status, 200, typed.text);
      assertEquals(typed.body, { ok: false, message: "The provider refused the key (401)." });
      ai.mode = "forbidden";
      const stored = await call("POST", "/keys/provider_4/test", D.acme.owner, {});
      assertEquals(stored.body, { ok: false, message: "The provider refused the key (403)." });
      assertOk(!typed.text.includes(TYPED) && !stored.text.includes(STORED));
      ai.mode = "ok";
    });

    await t.step(
      "no stored key with AI_BASE_URL: the server's routing is what is tested",
      async () => {
        const r = await call("POST", "/keys/provider_6/test", D.acme.owner, {});
        assertEquals(r.body.ok, true, r.text);
        assertOk(r.body.message.includes("AI_BASE_URL"), r.text);
      },
    );

    await t.step("an agent is refused; an unknown provider is 422 on provider", async () => {
      const agent = await call("POST", "/keys/provider_4/test", D.acme.agent, {});
      assertEquals(agent.status, 403, agent.text);
      const bad = await call("POST", "/keys/provider_99/test", D.acme.owner, {});
      assertEquals(bad.status, 422, bad.text);
      assertOk(bad.body.errors.provider, bad.text);
    });

    await t.step("an unreachable provider is said in words", async () => {
      await ai.close();
      const r = await call("POST", "/keys/provider_4/test", D.acme.owner, { api_key: TYPED });
      assertEquals(r.status, 200, r.text);
      assertEquals(r.body.ok, false);
      assertOk(r.body.message.startsWith("Could not reach the provider"), r.text);
    });
  } finally {
    await s.stop();
    await ai.close();
  }
});
