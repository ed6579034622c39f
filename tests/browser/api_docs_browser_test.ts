/**
 * GET /api/docs in headless Chromium: Swagger UI, served from this process
 * (no CDN), draws every surface's operations from /api/openapi.json, the
 * widget stream with its event-stream response, and "Try it out" calls the
 * server. The HTML is served under a strict Content-Security-Policy (added
 * here) to prove the page needs no inline script or style, and no console
 * error appears. Screenshots go to tests/output/ (api-docs.png, api-docs-try-it.png).
 */
import type { ConsoleMessage } from "playwright-core";
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed } from "../helpers/fixtures.ts";
import { launchChromium } from "../helpers/browser.ts";

const OUTPUT = new URL("../output/", import.meta.url);
const STRICT_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; " +
  "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'";

Deno.test("API reference in a browser", serverTestOptions, async (t) => {
  const s = await startTestServer({ seed: standardSeed() });
  const browser = await launchChromium();
  try {
    const doc = await (await fetch(`${s.url}/api/openapi.json`)).json();
    // The page is opened at the document's own server URL (BASE_URL), as a
    // user would, so "Try it out" stays same-origin under the CSP.
    const base: string = doc.servers[0].url;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    const offSite: string[] = [];
    page.on("console", (m: ConsoleMessage) => {
      if (m.type() === "error") problems.push(m.text());
    });
    page.on("pageerror", (e: Error) => problems.push(e.message));
    page.on("request", (r) => {
      if (!r.url().startsWith(base) && !r.url().startsWith("data:")) offSite.push(r.url());
    });
    await page.route(`${base}/api/docs`, async (route) => {
      const res = await route.fetch();
      await route.fulfill({
        response: res,
        headers: { ...res.headers(), "content-security-policy": STRICT_CSP },
      });
    });

    await t.step("the page draws every surface's operations", async () => {
      const res = await page.goto(`${base}/api/docs`);
      assertEquals(res?.status(), 200);
      await page.waitForSelector(".opblock", { timeout: 20_000 });
      const tags = await page.locator(".opblock-tag").allTextContents();
      const expected = doc.tags.map((x: { name: string }) => x.name);
      for (const name of ["Integration v1", "Portal", "Widget", "System"]) {
        assertOk(expected.includes(name), `document tag ${name}`);
      }
      for (const name of expected) {
        assertOk(tags.some((x) => x.startsWith(name)), `section ${name} in ${tags.join(" | ")}`);
      }
      const drawn = await page.locator(".opblock").count();
      const operations = Object.values(doc.paths).reduce(
        (n: number, ops) => n + Object.keys(ops as object).length,
        0,
      );
      assertEquals(drawn, operations, "every operation is drawn");
      await page.screenshot({ path: new URL("api-docs.png", OUTPUT).pathname });
      for (
        const path of [
          "/api/v1/chatbots/{key}/messages",
          "/api/portal/login",
          "/widget/{key}/stream",
          "/api/status",
        ]
      ) {
        assertOk(
          await page.locator(`.opblock-summary-path[data-path="${path}"]`).count() > 0,
          `${path} listed`,
        );
      }
    });

    await t.step("the widget stream shows its event-stream response", async () => {
      await page.locator('.opblock-summary-path[data-path="/widget/{key}/stream"]').click();
      const block = page.locator(".opblock.is-open");
      await block.locator(".responses-wrapper").waitFor();
      const text = await block.innerText();
      assertMatch(text, /text\/event-stream/);
      assertMatch(text, /event: meta/);
      assertMatch(text, /provider_rate_limited/);
      await block.locator(".opblock-summary").click(); // close it again
    });

    await t.step("Try it out calls the server", async () => {
      await page.locator('.opblock-summary-path[data-path="/api/status"]').click();
      const block = page.locator(".opblock.is-open");
      await block.locator("button.try-out__btn").click();
      await block.locator("button.execute").click();
      const live = block.locator(".live-responses-table tr.response td.response-col_status")
        .first();
      await live.waitFor({ timeout: 10_000 });
      assertEquals((await live.innerText()).trim(), "200");
      assertMatch(await block.locator(".live-responses-table").innerText(), /"status": "ok"/);
      await page.screenshot({ path: new URL("api-docs-try-it.png", OUTPUT).pathname });
    });

    await t.step("no console errors, nothing fetched from another origin", () => {
      assertEquals(problems, []);
      assertEquals(offSite, []);
    });
  } finally {
    await browser.close();
    await s.stop();
  }
});
