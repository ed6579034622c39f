/// <reference lib="dom" />
/**
 * The dashboard's Integrations screen in headless Chromium, against the
 * tests' Shopify- and Stripe-shaped servers: an owner tests a typed token
 * before saving (a wrong one fails clearly), links the storefront, and "test
 * connection" names the shop; links billing and its test names the Stripe
 * account; the page then shows only the last four. A viewer sees the state
 * read-only; an owner unlinks. Screenshots at desktop and phone width under
 * tests/output/.
 */
import type { Browser, Page } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL } from "../helpers/fixtures.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { startFakeShopify } from "../helpers/fake_shopify.ts";
import { startFakeStripe } from "../helpers/fake_stripe.ts";
import { dashboardSeed } from "../dashboard/dashboard_seed.ts";

const OUTPUT = new URL("../output/", import.meta.url);
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };

Deno.test("dashboard integrations screen in headless Chromium", serverTestOptions, async (t) => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const shopify = startFakeShopify("shpat_browser_test_token_9f3e");
  const stripe = startFakeStripe("sk_test_51BrowserTestKey7788");
  const s = await startTestServer({
    seed: dashboardSeed(),
    env: {
      SHOPIFY_BASE_URL: shopify.baseUrl,
      STRIPE_BASE_URL: stripe.baseUrl,
      CONTEXT_ALLOW_HOSTS: `${shopify.hostPort},${stripe.hostPort}`,
    },
  });
  let browser: Browser | null = null;
  const problems: string[] = [];
  const open = async (email: string, viewport = DESKTOP): Promise<Page> => {
    const context = await browser!.newContext({ viewport });
    const page = await context.newPage();
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("console", (m) => {
      // The publishable key below is refused on purpose: Chromium logs that 422.
      if (m.type() === "error" && !/status of 422/.test(m.text())) {
        problems.push(`console: ${m.text()}`);
      }
    });
    page.on("dialog", (d) => void d.accept());
    await signInAt(page, `${s.url}/dashboard`, email);
    await page.locator("body[data-screen]").waitFor();
    return page;
  };
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: new URL(`dashboard-${name}.png`, OUTPUT).pathname, fullPage: true });
  try {
    browser = await launchChromium();
    const owner = await open(EMAIL.acmeOwner);
    const store = owner.locator('section[data-integration="storefront"]');
    const billing = owner.locator('section[data-integration="billing"]');

    await t.step("a wrong token fails clearly before anything is saved", async () => {
      await owner.getByRole("link", { name: "Integrations" }).click();
      await owner.locator('body[data-screen="integrations"]').waitFor();
      await store.locator(".pill", { hasText: "Not linked" }).waitFor();
      const form = owner.getByRole("form", { name: "Storefront credentials" });
      await form.locator("input[name=shop]").fill("acme-store.myshopify.com");
      await form.locator("input[name=credential]").fill("shpat_not_the_right_one_0000");
      await form.getByRole("button", { name: "Test before saving" }).click();
      await store.locator(".test-result.failed", { hasText: "refused the access token (401)" })
        .waitFor();
      await store.locator(".pill", { hasText: "Not linked" }).waitFor();
    });

    await t.step("the owner links the store and test connection names the shop", async () => {
      const form = owner.getByRole("form", { name: "Storefront credentials" });
      await form.locator("input[name=credential]").fill(shopify.accessToken);
      await form.getByRole("button", { name: "Link" }).click();
      await store.locator(".pill", { hasText: "Not tested" }).waitFor();
      await store.getByRole("button", { name: "Test connection" }).click();
      await store.locator(".test-result.ok", { hasText: "“Acme Store” (acme-store.myshopify.com)" })
        .waitFor();
      await store.locator(".pill", { hasText: "Connected" }).waitFor();
      await store.getByText(`…${shopify.accessToken.slice(-4)}`).waitFor();
      const html = await owner.content();
      assertOk(!html.includes(shopify.accessToken), "the token is not in the page");
      assertEquals(await store.locator("input[name=credential]").inputValue(), "");
    });

    await t.step("billing: linked and its test names the Stripe account", async () => {
      const form = owner.getByRole("form", { name: "Billing credentials" });
      await form.locator("input[name=credential]").fill("pk_live_51Publishable0000");
      await form.getByRole("button", { name: "Link" }).click();
      await form.locator('[data-error-for="credential"]', { hasText: "publishable key" })
        .waitFor();
      await form.locator("input[name=credential]").fill(stripe.secretKey);
      await form.getByRole("button", { name: "Link" }).click();
      await billing.locator(".pill", { hasText: "Not tested" }).waitFor();
      await billing.getByRole("button", { name: "Test connection" }).click();
      await billing.locator(".test-result.ok", {
        hasText: "“Acme Ltd” (acct_1FakeAcme) in test mode",
      })
        .waitFor();
      await billing.locator(".pill", { hasText: "Connected" }).waitFor();
      assertOk(!(await owner.content()).includes(stripe.secretKey), "the key is not in the page");
      await shot(owner, "integrations-desktop");
    });

    await t.step("a viewer sees the state and cannot change it", async () => {
      const viewer = await open(EMAIL.acmeViewer);
      await viewer.goto(`${s.url}/dashboard#/integrations`);
      const card = viewer.locator('section[data-integration="storefront"]');
      await card.locator(".pill", { hasText: "Connected" }).waitFor();
      await viewer.getByRole("note").waitFor();
      assertEquals(await viewer.getByRole("button", { name: "Unlink" }).count(), 0);
      assertEquals(await viewer.getByRole("form", { name: "Storefront credentials" }).count(), 0);
      await shot(viewer, "integrations-viewer-desktop");
      await viewer.context().close();
    });

    await t.step("phone width: no sideways scrolling", async () => {
      const phone = await open(EMAIL.acmeOwner, PHONE);
      await phone.goto(`${s.url}/dashboard#/integrations`);
      await phone.locator('section[data-integration="billing"] .pill').waitFor();
      const wide = await phone.evaluate(() => document.documentElement.scrollWidth);
      assertOk(wide <= PHONE.width, `integrations is ${wide}px wide`);
      await shot(phone, "integrations-phone");
      await phone.context().close();
    });

    await t.step("the owner unlinks the store", async () => {
      await store.getByRole("button", { name: "Unlink" }).click();
      await owner.getByText("The storefront (Shopify) was unlinked").waitFor();
      await store.locator(".pill", { hasText: "Not linked" }).waitFor();
    });

    assertEquals(problems, []);
  } finally {
    await browser?.close();
    await s.stop();
    await Promise.all([shopify.close(), stripe.close()]);
  }
});
