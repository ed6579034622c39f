/**
 * GET /api/docs in headless Chromium: Swagger UI, served from this process
 * (no CDN), draws every surface's operations a surface at a time (its link,
 * `?surface=`, from /api/openapi/{slug}.json), the
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
    await page.route((url) => url.pathname === "/api/docs", async (route) => {
      const res = await route.fetch();
      await route.fulfill({
        response: res,
        headers: { ...res.headers(), "content-security-policy": STRICT_CSP },
      });
    });

    // Each surface's page draws the operations of its own document, and the documents
    // together hold every operation of the whole one.
    const sections = doc.tags.map((x: { name: string }) => x.name) as string[];
    const slugs: Record<string, string> = {
      "Integration v1": "v1",
      Portal: "portal",
      Agent: "agent",
      Dashboard: "dashboard",
      Widget: "widget",
      System: "system",
    };
    const drawnPaths = () =>
      page.locator(".opblock-summary-path").evaluateAll((els) =>
        els.map((e) => e.getAttribute("data-path") ?? "")
      );

    await t.step("the page draws every surface's operations, a surface at a time", async () => {
      const res = await page.goto(`${base}/api/docs`);
      assertEquals(res?.status(), 200);
      for (const name of ["Integration v1", "Portal", "Widget", "System"]) {
        assertOk(sections.includes(name), `document tag ${name}`);
      }
      // Without ?surface=, the first surface (the integration API).
      await page.locator('.opblock-summary-path[data-path="/api/v1/chatbots/{key}/messages"]')
        .first().waitFor({ timeout: 20_000 });
      await page.screenshot({ path: new URL("api-docs.png", OUTPUT).pathname });
      let drawn = 0;
      for (const name of sections) {
        const slug = slugs[name];
        assertOk(slug, `a link for ${name}`);
        const part = await (await fetch(`${base}/api/openapi/${slug}.json`)).json();
        const expected = Object.entries(part.paths).flatMap(([path, ops]) =>
          Object.values(ops as Record<string, { tags: string[] }>).map((o) => {
            assertEquals(o.tags, [name], `${path} belongs to ${name}`);
            return path;
          })
        );
        const whole = Object.entries(doc.paths).flatMap(([path, ops]) =>
          Object.values(ops as Record<string, { tags: string[] }>)
            .filter((o) => o.tags.includes(name)).map(() => path)
        );
        assertEquals(expected.sort(), whole.sort(), `${name}: the same operations as the whole`);
        await page.locator(`nav a[data-surface="${slug}"]`).click();
        await page.waitForURL(`**/api/docs?surface=${slug}`);
        assertEquals(
          await page.locator("nav a[aria-current=page]").getAttribute("data-surface"),
          slug,
        );
        const deadline = Date.now() + 30_000;
        let missing = expected;
        while (missing.length > 0 && Date.now() < deadline) {
          const now = await drawnPaths();
          missing = expected.filter((p) => !now.includes(p));
          if (missing.length) await new Promise((r) => setTimeout(r, 200));
        }
        assertEquals(missing, [], `${name}: every operation is drawn`);
        drawn += expected.length;
      }
      const operations = Object.values(doc.paths).reduce(
        (n: number, ops) => n + Object.keys(ops as object).length,
        0,
      );
      assertEquals(drawn, operations, "every operation is drawn");
    });

    await t.step("the widget stream shows its event-stream response", async () => {
      await page.goto(`${base}/api/docs?surface=widget`);
      await page.locator('.opblock-summary-path[data-path="/widget/{key}/stream"]').click();
      const block = page.locator(".opblock.is-open");
      await block.locator(".responses-wrapper").waitFor();
      const text = await block.innerText();
      assertMatch(text, /text\/event-stream/);
      assertMatch(text, /event: meta/);
      assertMatch(text, /provider_rate_limited/);
    });

    await t.step("Try it out calls the server", async () => {
      await page.goto(`${base}/api/docs?surface=system`);
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
