/// <reference lib="dom" />
/**
 * The "New tag" colour picker on Inbox settings is a colour well (a swatch
 * about 44 px wide), not a bar across the form. Screenshot under tests/output/.
 */
import type { Browser } from "playwright-core";
import { assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL } from "../helpers/fixtures.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { dashboardSeed } from "../dashboard/dashboard_seed.ts";

const OUTPUT = new URL("../output/", import.meta.url);

Deno.test("the new tag's colour picker is a swatch", serverTestOptions, async () => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const s = await startTestServer({ seed: dashboardSeed() });
  let browser: Browser | null = null;
  try {
    browser = await launchChromium();
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } }))
      .newPage();
    await signInAt(page, `${s.url}/dashboard`, EMAIL.acmeOwner);
    await page.locator("body[data-screen]").waitFor();
    await page.goto(`${s.url}/dashboard#/inbox-settings`);
    const picker = page.locator("form[aria-label='New tag'] input[type=color]");
    await picker.waitFor();
    const box = (await picker.boundingBox())!;
    assertOk(box.width <= 60 && box.height >= 24, `a swatch: ${JSON.stringify(box)}`);
    await page.locator("form[aria-label='New tag']").screenshot({
      path: new URL("tag-colour-picker.png", OUTPUT).pathname,
    });
  } finally {
    await browser?.close();
    await s.stop();
  }
});
