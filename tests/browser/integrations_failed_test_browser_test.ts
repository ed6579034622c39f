/// <reference lib="dom" />
/**
 * Integrations after a failed connection test, in headless Chromium: the
 * result says the test failed and nothing was saved; "Link" with the same
 * values asks first (dismissed: nothing linked); linked anyway, the card
 * reads "Test failed", not "Not tested". Screenshot under tests/output/.
 */
import type { Browser } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL } from "../helpers/fixtures.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { dashboardSeed } from "../dashboard/dashboard_seed.ts";
import { startFakeShopify } from "../helpers/fake_shopify.ts";

const OUTPUT = new URL("../output/", import.meta.url);

Deno.test("linking a store that failed its test asks first", serverTestOptions, async () => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const shopify = startFakeShopify("shpat_right_token_for_the_fake_1");
  const s = await startTestServer({
    seed: dashboardSeed(),
    env: { SHOPIFY_BASE_URL: shopify.baseUrl, CONTEXT_ALLOW_HOSTS: shopify.hostPort },
  });
  let browser: Browser | null = null;
  const dialogs: string[] = [];
  let accept = false;
  try {
    browser = await launchChromium();
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } }))
      .newPage();
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void (accept ? d.accept() : d.dismiss());
    });
    await signInAt(page, `${s.url}/dashboard`, EMAIL.acmeOwner);
    await page.locator("body[data-screen]").waitFor();
    await page.goto(`${s.url}/dashboard#/integrations`);
    const store = page.locator('section[data-integration="storefront"]');
    const form = page.getByRole("form", { name: "Storefront credentials" });
    await form.waitFor();
    await form.locator("input[name=shop]").fill("acme-store.myshopify.com");
    await form.locator("input[name=credential]").fill("shpat_not_the_right_one_0000");
    await form.getByRole("button", { name: "Test before saving" }).click();
    const failed = store.locator(".test-result.failed");
    await failed.waitFor();
    assertOk((await failed.innerText()).includes("nothing was saved"), await failed.innerText());

    await form.getByRole("button", { name: "Link" }).click();
    await page.waitForFunction(() => true);
    assertEquals(dialogs.length, 1);
    assertOk(dialogs[0]!.includes("did not answer the test"), dialogs[0]);
    await store.locator(".pill", { hasText: "Not linked" }).waitFor();

    accept = true;
    await form.getByRole("button", { name: "Link" }).click();
    await store.locator(".pill", { hasText: "Test failed" }).waitFor();
    assertEquals(dialogs.length, 2);
    await page.screenshot({
      path: new URL("integrations-failed-test.png", OUTPUT).pathname,
      fullPage: true,
    });
  } finally {
    await browser?.close();
    await s.stop();
    await shopify.close();
  }
});
