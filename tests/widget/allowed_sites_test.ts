/**
 * Allowed sites of a bot's widget (docs/widget-api.md#allowed-sites): the
 * owner's list saved and normalised through the dashboard API (422 naming the
 * entry), then every widget endpoint refusing a browser request from another
 * site with a 403 before anything runs (no conversation, no provider call),
 * by `Origin`, or by `Referer` for a GET without one; a request that names no
 * page (not a browser) still passes, as documented. A changed list applies at
 * once, and an empty list opens the widget to every site again.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { D, dashboardSeed } from "../dashboard/dashboard_seed.ts";
import { freshIp, postStream, WIDGET_ENV } from "./widget_client.ts";
import { normaliseSite, originAllowed } from "../../domain/widget/site_rules.ts";

const ai = startFakeAi({ reply: "Hello from the bot." });
const s = await startTestServer({
  seed: dashboardSeed(),
  env: { ...WIDGET_ENV, AI_BASE_URL: ai.baseUrl },
});

const setSites = (sites: string[]) =>
  http(s.url, "PUT", "/api/dashboard/chatbots/acme-helper", {
    token: D.acme.owner,
    body: { name: "Acme Helper", allowed_origins: sites },
  });
const config = (headers: Record<string, string>) =>
  http(s.url, "GET", "/widget/acme-helper/config", { headers: { ...freshIp(), ...headers } });
const conversations = async () =>
  (await s.deps.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM conversations`)[0]!.n;

Deno.test("allowed sites of the widget", serverTestOptions, async (t) => {
  await t.step("without a list, any site may use the widget", async () => {
    const r = await config({ origin: "https://anywhere.example" });
    assertEquals(r.status, 200);
    const d = await http(s.url, "GET", "/api/dashboard/chatbots/acme-helper", {
      token: D.acme.owner,
    });
    assertEquals(d.body.data.allowed_origins, []);
  });

  await t.step("the list is checked and normalised; a bad entry is a 422 naming it", async () => {
    const bad = await setSites(["https://shop.example.com", "ftp://files.example.com"]);
    assertEquals(bad.status, 422);
    assertOk(
      bad.body.errors.allowed_origins.join(" ").includes("Site 2"),
      JSON.stringify(bad.body),
    );
    const path = await setSites(["https://shop.example.com/checkout"]);
    assertEquals(path.status, 422);
    // Nothing of the refused lists was stored.
    assertEquals(
      (await s.deps.sql`SELECT allowed_origins FROM chatbots WHERE public_key = 'acme-helper'`)[0]!
        .allowed_origins,
      [],
    );
    const tooMany = await setSites(Array.from({ length: 51 }, (_, i) => `https://s${i}.test`));
    assertEquals(tooMany.status, 422);
    assertOk("allowed_origins" in tooMany.body.errors);

    const ok = await setSites([
      " HTTPS://Shop.Example.com/ ",
      "*.example.org",
      "http://127.0.0.1:8080",
      "https://shop.example.com",
    ]);
    assertEquals(ok.status, 200);
    assertEquals(ok.body.data.allowed_origins, [
      "https://shop.example.com",
      "https://*.example.org",
      "http://127.0.0.1:8080",
    ]);
  });

  await t.step("a page of an allowed site is served, by Origin or by Referer", async () => {
    assertEquals((await config({ origin: "https://shop.example.com" })).status, 200);
    assertEquals((await config({ origin: "https://eu.shop.example.org" })).status, 200);
    assertEquals((await config({ origin: "http://127.0.0.1:8080" })).status, 200);
    assertEquals(
      (await config({ referer: "https://shop.example.com/products/kettle?x=1" })).status,
      200,
    );
  });

  await t.step("another site gets the 403 the widget shows, with CORS to read it", async () => {
    for (
      const headers of [
        { origin: "https://evil.example.net" } as Record<string, string>,
        { origin: "http://shop.example.com" }, // another scheme
        { origin: "https://example.org" }, // the wildcard's own domain is not a subdomain
        { origin: "http://127.0.0.1:8081" }, // another port
        { origin: "null" }, // a sandboxed frame or a file
        { referer: "https://evil.example.net/page" },
      ]
    ) {
      const r = await config(headers);
      assertEquals(r.status, 403, JSON.stringify(headers));
      assertEquals(r.body.message, "This chat is not available on this site.");
      assertEquals(r.headers.get("access-control-allow-origin"), "*");
    }
  });

  await t.step("a refused stream starts nothing: no conversation, no provider call", async () => {
    const before = await conversations();
    const calls = ai.requests.length;
    const refused = await postStream(s.url, "acme-helper", {
      visitor_id: "copied-snippet-visitor",
      message: "Hi, anyone there?",
    }, { ...freshIp(), origin: "https://evil.example.net" });
    assertEquals(refused.status, 403);
    for (
      const [method, path, body] of [
        ["POST", "/widget/acme-helper/heartbeat", { visitor_id: "v1" }],
        ["POST", "/widget/acme-helper/handoff", { visitor_id: "v1" }],
        ["POST", "/widget/acme-helper/chat/reset", { visitor_id: "v1" }],
        ["GET", "/widget/acme-helper/conversation?visitor_id=v1", undefined],
      ] as const
    ) {
      const r = await http(s.url, method, path, {
        body,
        headers: { ...freshIp(), origin: "https://evil.example.net" },
      });
      assertEquals(r.status, 403, path);
    }
    await new Promise((r) => setTimeout(r, 100));
    assertEquals(await conversations(), before);
    assertEquals(ai.requests.length, calls);

    const allowed = await postStream(s.url, "acme-helper", {
      visitor_id: "shop-visitor",
      message: "Hi, anyone there?",
    }, { ...freshIp(), origin: "https://shop.example.com" });
    assertEquals(allowed.status, 200);
    assertEquals(await conversations(), before + 1);
  });

  await t.step("a request naming no page is not a browser's: it passes (documented)", async () => {
    assertEquals((await config({})).status, 200);
  });

  await t.step("a changed list applies at once; an empty one opens every site", async () => {
    // The list was read (and kept) for the requests above: the change must still apply now.
    assertEquals((await config({ origin: "https://new.example.com" })).status, 403);
    assertEquals((await setSites(["https://new.example.com"])).status, 200);
    assertEquals((await config({ origin: "https://new.example.com" })).status, 200);
    assertEquals((await config({ origin: "https://shop.example.com" })).status, 403);
    assertEquals((await setSites([])).status, 200);
    assertEquals((await config({ origin: "https://evil.example.net" })).status, 200);
  });

  await t.step("another bot's list does not apply to this one", async () => {
    assertEquals((await setSites(["https://shop.example.com"])).status, 200);
    const other = await http(s.url, "GET", "/widget/acme-sleeper/config", {
      headers: { ...freshIp(), origin: "https://evil.example.net" },
    });
    assertOk(other.status !== 403, `acme-sleeper answered ${other.status}`);
    await setSites([]);
  });

  await t.step(
    "an agent or viewer cannot change the list; another workspace gets 404",
    async () => {
      const as = (token: string, key = "acme-helper") =>
        http(s.url, "PUT", `/api/dashboard/chatbots/${key}`, {
          token,
          body: { name: "X", allowed_origins: ["https://mine.example"] },
        });
      assertEquals((await as(D.acme.viewer)).status, 403);
      assertEquals((await as(D.acme.agent)).status, 403);
      assertEquals((await as(D.globex.owner)).status, 404);
    },
  );
});

Deno.test("site patterns: normalised and matched exactly", () => {
  assertEquals(normaliseSite("shop.example.com"), { site: "https://shop.example.com" });
  assertEquals(normaliseSite("https://shop.example.com:443"), { site: "https://shop.example.com" });
  assertEquals(normaliseSite("http://localhost:3000/"), { site: "http://localhost:3000" });
  assertOk("error" in normaliseSite("https://*"));
  assertOk("error" in normaliseSite("javascript:alert(1)"));
  assertOk("error" in normaliseSite("https://a.example.com/?q=1"));
  const sites = ["https://*.example.com", "http://localhost:3000"];
  assertOk(originAllowed(sites, "https://a.b.example.com"));
  assertOk(!originAllowed(sites, "https://example.com"));
  assertOk(!originAllowed(sites, "https://badexample.com"));
  assertOk(!originAllowed(sites, "https://example.com.evil.net"));
  assertOk(originAllowed(sites, "http://localhost:3000"));
  assertOk(!originAllowed(sites, "http://localhost"));
  assertOk(originAllowed([], "https://anything.test"));
});
