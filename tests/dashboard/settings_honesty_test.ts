/**
 * Settings screens that agree with the server: the dashboard's key list says
 * what the operator set for every workspace (AI_BASE_URL, AI_API_KEY: whether,
 * never the value); a refused private address names the setting and the
 * entry an operator adds (crawl, webhook, integrations); CRAWL_ALLOW_HOSTS
 * takes a bare host meaning any port, as the other allowances do.
 */
import { assertEquals, assertMatch, assertOk as assert } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { http } from "../helpers/http.ts";
import { D, dashboardSeed } from "./dashboard_seed.ts";
import {
  AddressRefused,
  assertAddressAllowed,
  literalAddressRefusal,
} from "../../domain/crawl/address_policy.ts";
import { hostAllowancePolicy } from "../../domain/crawl/host_allowance.ts";

Deno.test("the key list says the operator's AI routing", serverTestOptions, async () => {
  const s = await startTestServer({
    seed: dashboardSeed(),
    env: { AI_BASE_URL: "http://10.1.2.3:11434/v1", CRAWL_ALLOW_PRIVATE: "0" },
  });
  try {
    const keys = await http(s.url, "GET", "/api/dashboard/keys", { token: D.acme.owner });
    assertEquals(keys.status, 200);
    assertEquals(keys.body.server.ai_base_url, true);
    assertEquals(keys.body.server.ai_api_key, false);
    assertMatch(keys.body.server.note, /AI_BASE_URL/);
    assert(!JSON.stringify(keys.body).includes("10.1.2.3"), "the address itself is not shown");

    // A private crawl address: the 422 names the setting and the entry to add.
    const bad = await http(s.url, "POST", "/api/dashboard/chatbots/acme-helper/knowledge", {
      token: D.acme.owner,
      body: { type: "url", title: "Intranet", source_url: "http://192.168.1.20:8080/faq" },
    });
    assertEquals(bad.status, 422, JSON.stringify(bad.body));
    const said = bad.body.errors.source_url[0] as string;
    assertMatch(said, /CRAWL_ALLOW_HOSTS/);
    assertMatch(said, /"192\.168\.1\.20" \(any port\) or "192\.168\.1\.20:8080"/);

    // A webhook over http: the refusal names WEBHOOK_ALLOW_HOSTS.
    const hook = await http(s.url, "POST", "/api/dashboard/webhooks", {
      token: D.acme.owner,
      body: { url: "http://crm.example.com/hook", events: ["conversation.created"] },
    });
    assertEquals(hook.status, 422, JSON.stringify(hook.body));
    assertMatch(hook.body.errors.url[0], /WEBHOOK_ALLOW_HOSTS/);
  } finally {
    await s.stop();
  }
});

Deno.test("a server-wide key alone is said as such", serverTestOptions, async () => {
  const s = await startTestServer({ seed: dashboardSeed(), env: { AI_API_KEY: "sk-operator" } });
  try {
    const keys = await http(s.url, "GET", "/api/dashboard/keys", { token: D.acme.owner });
    assertEquals(keys.body.server.ai_base_url, false);
    assertEquals(keys.body.server.ai_api_key, true);
    assertMatch(keys.body.server.note, /AI_API_KEY/);
    assert(!JSON.stringify(keys.body).includes("sk-operator"));
  } finally {
    await s.stop();
  }
});

Deno.test("CRAWL_ALLOW_HOSTS: a bare host allows any port, host:port that port", async () => {
  const resolve = () => Promise.resolve(["127.0.0.1"]);
  const crawl = (hosts: string[]) => ({
    allowPrivate: false,
    allowHosts: hosts,
    allowSetting: "CRAWL_ALLOW_HOSTS",
  });
  await assertAddressAllowed(new URL("http://site.test:4321/"), crawl(["site.test"]), resolve);
  await assertAddressAllowed(new URL("http://site.test:4321/"), crawl(["site.test:4321"]), resolve);
  assertEquals(literalAddressRefusal("http://127.0.0.1:9/", crawl(["127.0.0.1"])), null);
  let refused: unknown = null;
  try {
    await assertAddressAllowed(new URL("http://site.test:80/"), crawl(["site.test:4321"]), resolve);
  } catch (err) {
    refused = err;
  }
  assert(refused instanceof AddressRefused);
  assertMatch(
    refused.message,
    /adds "site\.test" \(any port\) or "site\.test:80" to CRAWL_ALLOW_HOSTS/,
  );
});

Deno.test("an integration's refusal names CONTEXT_ALLOW_HOSTS", async () => {
  const url = new URL("http://10.0.0.7:3000/admin");
  let refused: unknown = null;
  try {
    await assertAddressAllowed(url, hostAllowancePolicy([], url, "CONTEXT_ALLOW_HOSTS"));
  } catch (err) {
    refused = err;
  }
  assert(refused instanceof AddressRefused);
  assertMatch(refused.message, /CONTEXT_ALLOW_HOSTS/);
});
