/**
 * Every response says `X-Content-Type-Options: nosniff`; the HTML pages we
 * serve (/api/docs, /demo) carry a strict Content-Security-Policy (no
 * 'unsafe-inline', no foreign origin) and still work under it in a real
 * browser, with no violation reported; widget.js opened directly is inert.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { launchChromium } from "../helpers/browser.ts";

Deno.test("security headers", serverTestOptions, async (t) => {
  const s = await startTestServer({ seed: standardSeed(), env: { DEMO: "1" } });
  const auth = { authorization: `Bearer ${T.acme.owner.api}` };
  try {
    await t.step("nosniff on every kind of response", async () => {
      const cases: [string, string, RequestInit?][] = [
        ["GET", "/healthz"],
        ["GET", "/readyz"],
        ["GET", "/api/v1/me", { headers: auth }],
        ["GET", "/api/v1/me"],
        ["GET", "/no/such/path"],
        ["DELETE", "/api/v1/me", { headers: auth }],
        ["POST", "/api/portal/login", {
          body: "{bad",
          headers: { "content-type": "application/json" },
        }],
        ["POST", "/api/portal/login", {
          body: "{}",
          headers: { "content-type": "application/json" },
        }],
        ["GET", "/trpc/v1.me", { headers: auth }],
        ["GET", "/trpc/v1.me?input=%zz"],
        ["OPTIONS", "/widget/acme-helper/config"],
        ["GET", "/widget/acme-helper/config"],
        ["POST", "/widget/acme-helper/stream", { body: "{}" }],
        ["GET", "/widget.js"],
        ["GET", "/demo"],
        ["GET", "/api/docs"],
        ["GET", "/api/openapi.json"],
      ];
      for (const [method, path, init] of cases) {
        const res = await fetch(s.url + path, { method, ...init });
        await res.body?.cancel();
        assertEquals(res.headers.get("x-content-type-options"), "nosniff", `${method} ${path}`);
      }
    });

    await t.step("the HTML pages carry a strict CSP; widget.js is inert when opened", async () => {
      for (const path of ["/api/docs", "/demo"]) {
        const res = await fetch(s.url + path);
        await res.body?.cancel();
        const csp = res.headers.get("content-security-policy") ?? "";
        assertMatch(csp, /default-src '(none|self)'/, path);
        assertMatch(csp, /frame-ancestors 'none'/, path);
        assertOk(!csp.includes("unsafe-inline") && !csp.includes("*"), `${path}: ${csp}`);
      }
      const js = await fetch(`${s.url}/widget.js`);
      await js.body?.cancel();
      assertMatch(js.headers.get("content-security-policy") ?? "", /default-src 'none'/);
    });

    await t.step("the pages work under their policy in a browser", async () => {
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        const violations: string[] = [];
        page.on("console", (m) => {
          if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
        });
        await page.goto(`${s.url}/api/docs`);
        await page.waitForSelector(".opblock", { timeout: 20_000 });
        assertOk((await page.locator(".opblock").count()) > 5, "operations listed");
        await page.goto(`${s.url}/demo`);
        await page.locator(".launcher").first().waitFor({ timeout: 10_000 });
        assertEquals(violations, []);
      } finally {
        await browser.close();
      }
    });
  } finally {
    await s.stop();
  }
});
