/// <reference lib="dom" />
/**
 * Settings screens that agree with the server, in headless Chromium: with
 * AI_BASE_URL set, Provider keys says "Server routing (AI_BASE_URL)" instead
 * of "Not set" and explains the routing, the bot form's provider list no
 * longer says "(no key stored)" and carries the same sentence; the webhook
 * form's hint names WEBHOOK_ALLOW_HOSTS. Screenshots under tests/output/.
 */
import type { Browser, Page } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL } from "../helpers/fixtures.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { dashboardSeed } from "../dashboard/dashboard_seed.ts";

const OUTPUT = new URL("../output/", import.meta.url);

Deno.test("settings screens say the server's AI routing", serverTestOptions, async (t) => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const s = await startTestServer({
    seed: dashboardSeed(),
    env: { AI_BASE_URL: "http://127.0.0.1:9/v1" },
  });
  let browser: Browser | null = null;
  const problems: string[] = [];
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: new URL(`settings-${name}.png`, OUTPUT).pathname, fullPage: true });
  try {
    browser = await launchChromium();
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } }))
      .newPage();
    page.on("pageerror", (e) => problems.push(e.message));
    await signInAt(page, `${s.url}/dashboard`, EMAIL.acmeOwner);
    await page.locator("body[data-screen]").waitFor();

    await t.step("Provider keys: server routing, not 'Not set'", async () => {
      await page.goto(`${s.url}/dashboard#/keys`);
      await page.locator("tr[data-provider]").first().waitFor();
      const note = page.locator(".routing-note");
      await note.waitFor();
      assertOk((await note.innerText()).includes("AI_BASE_URL"));
      assertEquals(await page.getByText("Not set", { exact: true }).count(), 0);
      const pills = await page.locator("tr[data-provider] .pill").allInnerTexts();
      assertOk(pills.includes("Server routing (AI_BASE_URL)"), pills.join(" | "));
      assertOk(
        pills.every((p) => p === "Configured" || p === "Server routing (AI_BASE_URL)"),
        pills.join(" | "),
      );
      await shot(page, "keys-routing-desktop");
    });

    await t.step("the bot form: no '(no key stored)', the routing sentence", async () => {
      await page.goto(`${s.url}/dashboard#/bots/acme-helper`);
      const select = page.locator("select[name=provider]");
      await select.waitFor();
      const options = await select.locator("option").allInnerTexts();
      assertOk(options.every((o) => !o.includes("no key stored")), options.join(" | "));
      assertOk(
        options.some((o) => o.includes("server routing (ai_base_url)")),
        options.join(" | "),
      );
      const label = page.locator("label.field", { has: select });
      assertOk((await label.innerText()).includes("AI_BASE_URL"));
      await shot(page, "bot-routing-desktop");
    });

    await t.step("the webhook form's hint names WEBHOOK_ALLOW_HOSTS", async () => {
      await page.goto(`${s.url}/dashboard#/webhooks`);
      const url = page.locator("input[name=url]");
      await url.waitFor();
      const hint = await page.locator("label.field", { has: url }).innerText();
      assertOk(hint.includes("WEBHOOK_ALLOW_HOSTS"), hint);
      assertOk(!hint.includes("https only; the address must be public"), hint);
    });
    assertEquals(problems, []);
  } finally {
    await browser?.close();
    await s.stop();
  }
});
