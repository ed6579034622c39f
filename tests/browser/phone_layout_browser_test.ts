/// <reference lib="dom" />
/**
 * The dashboard at 390 px in headless Chromium: the header is one compact
 * line, and the navigation, folded behind "Menu", shows every entry on
 * screen at once (however many screens.ts lists: nothing scrolls sideways
 * out of sight); each entry opens its screen and folds the menu again.
 * Screenshots under tests/output/.
 */
import type { Browser } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL } from "../helpers/fixtures.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { dashboardSeed } from "../dashboard/dashboard_seed.ts";

const OUTPUT = new URL("../output/", import.meta.url);

Deno.test("the dashboard at 390 px reaches every screen", serverTestOptions, async () => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const s = await startTestServer({ seed: dashboardSeed() });
  let browser: Browser | null = null;
  const problems: string[] = [];
  try {
    browser = await launchChromium();
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } }))
      .newPage();
    page.on("pageerror", (e) => problems.push(e.message));
    await signInAt(page, `${s.url}/dashboard`, EMAIL.acmeOwner);
    await page.locator("body[data-screen]").waitFor({ timeout: 60_000 }); // a slow hash under load

    const header = (await page.locator("header.top").boundingBox())!;
    assertOk(header.height <= 56, `a one-line header: ${header.height}px`);
    const menu = page.locator("button.nav-toggle");
    assertOk(await menu.isVisible());
    assertOk(await page.locator("nav.side").isHidden(), "the navigation is folded");
    await page.screenshot({ path: new URL("phone-layout-closed.png", OUTPUT).pathname });
    // The overview's AI cost says its currency.
    const cost = page.locator("[data-counter=cost]");
    assertOk((await cost.locator(".counter-label").innerText()).includes("USD"));
    assertOk((await cost.locator(".counter-value").innerText()).includes("$"));

    await menu.click();
    assertEquals(await menu.getAttribute("aria-expanded"), "true");
    const links = page.locator("nav.side .nav-list a");
    const count = await links.count();
    assertOk(count >= 9, `${count} entries`);
    for (let i = 0; i < count; i++) {
      const box = (await links.nth(i).boundingBox())!;
      assertOk(
        box.x >= 0 && box.x + box.width <= 390 && box.y + box.height <= 844,
        `entry ${i} on screen: ${JSON.stringify(box)}`,
      );
    }
    assertEquals(
      await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth),
      true,
      "nothing wider than the phone",
    );
    await page.screenshot({ path: new URL("phone-layout-menu.png", OUTPUT).pathname });

    // The last entry opens its screen and folds the menu.
    const last = links.nth(count - 1);
    const target = await last.getAttribute("data-screen");
    await last.click();
    await page.locator(`body[data-screen="${target}"]`).waitFor();
    assertOk(await page.locator("nav.side").isHidden());
    assertOk((await menu.innerText()).startsWith("Menu"));
    assertEquals(problems, []);
  } finally {
    await browser?.close();
    await s.stop();
  }
});
