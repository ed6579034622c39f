/// <reference lib="dom" />
/**
 * The inbox's "Dashboard" link on the dark top bar is readable: its colour
 * against the bar reaches WCAG AA's 4.5:1 (it was the default dark blue on
 * navy). Screenshot under tests/output/.
 */
import type { Browser } from "playwright-core";
import { assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, standardSeed } from "../helpers/fixtures.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";

const OUTPUT = new URL("../output/", import.meta.url);

function luminance(rgb: string): number {
  const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((v) => {
    const c = Number(v) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

Deno.test("the inbox's Dashboard link is readable on the top bar", serverTestOptions, async () => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const s = await startTestServer({ seed: standardSeed() });
  let browser: Browser | null = null;
  try {
    browser = await launchChromium();
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } }))
      .newPage();
    await signInAt(page, `${s.url}/inbox`, EMAIL.acmeOwner);
    const link = page.locator(".top a.to-dashboard");
    await link.waitFor();
    const color = await link.evaluate((el) => getComputedStyle(el).color);
    const bar = await page.locator(".top").evaluate((el) => getComputedStyle(el).backgroundColor);
    const [hi, lo] = [luminance(color), luminance(bar)].sort((a, b) => b - a);
    const ratio = (hi! + 0.05) / (lo! + 0.05);
    assertOk(ratio >= 4.5, `contrast ${ratio.toFixed(2)}: ${color} on ${bar}`);
    await page.locator(".top").screenshot({
      path: new URL("inbox-dashboard-link.png", OUTPUT).pathname,
    });
  } finally {
    await browser?.close();
    await s.stop();
  }
});
