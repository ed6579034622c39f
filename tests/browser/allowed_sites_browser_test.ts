/// <reference lib="dom" />
/**
 * Allowed sites in headless Chromium: the owner lists a shop's site on the
 * bot's settings screen; the snippet then opens the chat on that site's page,
 * and on another site's page shows "This chat is not available on this site"
 * instead, where the launcher would be. Screenshots go to tests/output/.
 */
import type { Browser } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL } from "../helpers/fixtures.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { freePort } from "../helpers/net.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { dashboardSeed } from "../dashboard/dashboard_seed.ts";

const OUTPUT = new URL("../output/", import.meta.url);

/** A host page with the bot's snippet, on a port of its own (its own origin). */
function hostPage(parley: string) {
  const snippet = `<script src="${parley}/widget.js" data-key="acme-helper" defer></script>`;
  return Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () =>
      new Response(`<!doctype html><title>Shop</title><h1>Shop</h1>${snippet}`, {
        headers: { "content-type": "text/html" },
      }),
  );
}

Deno.test("allowed sites in headless Chromium", serverTestOptions, async (t) => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const ai = startFakeAi({ reply: "Hello from the bot." });
  const port = freePort();
  const s = await startTestServer({
    seed: dashboardSeed(),
    env: { AI_BASE_URL: ai.baseUrl, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}` },
  });
  const shop = hostPage(s.url);
  const copier = hostPage(s.url);
  const shopOrigin = `http://127.0.0.1:${shop.addr.port}`;
  let browser: Browser | null = null;
  const problems: string[] = [];
  try {
    browser = await launchChromium();
    await t.step("the owner lists the shop's site on the bot's settings", async () => {
      const page = await (await browser!.newContext({ viewport: { width: 1280, height: 900 } }))
        .newPage();
      page.on("pageerror", (e) => problems.push(e.message));
      await signInAt(page, `${s.url}/dashboard`, EMAIL.acmeOwner);
      await page.locator("body[data-screen]").waitFor();
      await page.goto(`${s.url}/dashboard#/bots/acme-helper`);
      const state = page.locator("[data-sites-state]");
      await state.waitFor();
      assertOk(
        (await state.textContent())!.includes("Any site"),
        String(await state.textContent()),
      );
      const sites = page.locator("textarea[name=allowed_origins]");
      // A wrong entry is named beside the field, and nothing is saved.
      await sites.fill("ftp://files.example.com");
      await page.getByRole("button", { name: "Save sites" }).click();
      await page.locator('[data-error-for="allowed_origins"]', { hasText: "Site 1" }).waitFor();
      await sites.fill(`${shopOrigin}/\nhttps://*.example.com`);
      await page.getByRole("button", { name: "Save sites" }).click();
      await page.locator("[data-sites-state]", { hasText: "runs only on" }).waitFor();
      assertEquals(await sites.inputValue(), `${shopOrigin}\nhttps://*.example.com`);
      await page.screenshot({
        path: new URL("allowed-sites-settings.png", OUTPUT).pathname,
        fullPage: true,
      });
      await page.context().close();
    });

    await t.step("on the shop's page the chat opens and answers", async () => {
      const page = await browser!.newPage();
      page.on("pageerror", (e) => problems.push(e.message));
      await page.goto(`${shopOrigin}/`);
      await page.locator(".launcher").click();
      await page.locator("textarea[aria-label=Message]").fill("Hello?");
      await page.locator("textarea[aria-label=Message]").press("Enter");
      await page.getByText("Hello from the bot.").waitFor();
      await page.close();
    });

    await t.step("on another site's page a notice says the chat is not available", async () => {
      const page = await browser!.newPage();
      page.on("pageerror", (e) => problems.push(e.message));
      const calls = ai.requests.length;
      await page.goto(`http://127.0.0.1:${copier.addr.port}/`);
      const notice = page.locator("[data-parley=unavailable] .notice");
      await notice.waitFor();
      assertEquals(
        (await notice.textContent())?.replace("×", "").trim(),
        "This chat is not available on this site.",
      );
      assertEquals(await page.locator(".launcher").count(), 0);
      await page.screenshot({ path: new URL("allowed-sites-refused.png", OUTPUT).pathname });
      await notice.getByRole("button", { name: "Close" }).click();
      assertEquals(await page.locator("[data-parley=unavailable]").count(), 0);
      assertEquals(ai.requests.length, calls);
      await page.close();
    });
    assertEquals(problems, []);
  } finally {
    await browser?.close();
    await shop.shutdown();
    await copier.shutdown();
    await s.stop();
    await ai.close();
  }
});
