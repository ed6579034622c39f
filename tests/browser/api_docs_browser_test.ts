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
      const operations = Object.values(doc.paths).reduce(
        (n: number, ops) => n + Object.keys(ops as object).length,
        0,
      );
      const expected = doc.tags.map((x: { name: string }) => x.name);
      for (const name of ["Integration v1", "Portal", "Widget", "System"]) {
        assertOk(expected.includes(name), `document tag ${name}`);
      }
      // A document this long is read a section at a time, through the page's filter (Swagger
      // UI stops drawing the whole list at once): each section draws all its operations.
      const filter = page.locator("input.operation-filter-input");
      let drawn = 0;
      for (const name of expected) {
        const paths = Object.entries(doc.paths).flatMap(([path, ops]) =>
          Object.values(ops as Record<string, { tags: string[] }>)
            .filter((o) => o.tags.includes(name)).map(() => path)
        );
        await filter.fill(name);
        const shown = () =>
          page.locator(".opblock-summary-path").evaluateAll((els) =>
            els.map((e) => e.getAttribute("data-path") ?? "")
          );
        const deadline = Date.now() + 30_000;
        let missing = paths;
        while (missing.length > 0 && Date.now() < deadline) {
          const now = await shown();
          missing = paths.filter((p) => !now.includes(p));
          if (missing.length) await new Promise((r) => setTimeout(r, 200));
        }
        assertEquals(missing, [], `section ${name}: every operation is drawn`);
        drawn += paths.length;
      }
      assertEquals(drawn, operations, "every operation is drawn");
      await filter.fill("Integration v1");
      await page.screenshot({ path: new URL("api-docs.png", OUTPUT).pathname });
      for (
        const [path, tag] of [
          ["/api/v1/chatbots/{key}/messages", "Integration v1"],
          ["/api/portal/login", "Portal"],
          ["/widget/{key}/stream", "Widget"],
          ["/api/status", "System"],
        ]
      ) {
        await filter.fill(tag!);
        await page.locator(`.opblock-summary-path[data-path="${path}"]`).first().waitFor();
      }
    });

    await t.step("the widget stream shows its event-stream response", async () => {
      await page.locator("input.operation-filter-input").fill("Widget");
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
      await page.locator("input.operation-filter-input").fill("System");
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
