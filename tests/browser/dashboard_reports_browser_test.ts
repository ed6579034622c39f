/// <reference lib="dom" />
/**
 * Reports in headless Chromium over the API test's known history: the owner
 * picks a custom range in New York time, sees the figures, the charts (each
 * bar's numbers in its title) and the tables; filtering by an agent changes
 * them; a table sorts; the phone width keeps everything readable.
 * Screenshots under tests/output/.
 */
import type { Browser, Page } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL } from "../helpers/fixtures.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { WIDGET_ENV } from "../widget/widget_client.ts";
import { dashboardSeed } from "../dashboard/dashboard_seed.ts";
import { buildHistory } from "../reports/report_history.ts";

const OUTPUT = new URL("../output/", import.meta.url);
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

Deno.test("dashboard reports in headless Chromium", serverTestOptions, async (t) => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const fake = startFakeAi({ reply: "Happy to help." });
  const s = await startTestServer({
    seed: dashboardSeed(),
    env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
  });
  let browser: Browser | null = null;
  const problems: string[] = [];
  const open = async (viewport: { width: number; height: number }): Promise<Page> => {
    const context = await browser!.newContext({ viewport, acceptDownloads: true });
    const page = await context.newPage();
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    await signInAt(page, `${s.url}/dashboard`, EMAIL.acmeOwner);
    await page.locator("body[data-screen]").waitFor();
    return page;
  };
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: new URL(`dashboard-${name}.png`, OUTPUT).pathname, fullPage: true });
  const figure = (page: Page, key: string) =>
    page.locator(`[data-figure="${key}"] .counter-value`).textContent();
  const pickRange = async (page: Page) => {
    const form = page.getByRole("search", { name: "Report period and filters" });
    await form.locator("select[name=preset]").selectOption("custom");
    await form.locator("input[name=from]").fill("2026-01-31");
    await form.locator("input[name=to]").fill("2026-02-01");
    await form.locator("input[name=time_zone]").fill("America/New_York");
    await form.getByRole("button", { name: "Show" }).click();
    await page.locator('[data-period="2026-01-31/2026-02-01"]').waitFor();
    return form;
  };
  try {
    const h = await buildHistory(s);
    s.deps.clock = () => new Date(); // the browser's session lives in real time
    browser = await launchChromium();
    const owner = await open(DESKTOP);

    await t.step("the navigation leads to Reports", async () => {
      await owner.getByRole("navigation", { name: "Dashboard" }).getByRole("link", {
        name: "Reports",
      }).click();
      await owner.locator("[data-figure=conversations]").waitFor();
    });

    await t.step("a custom range shows the history's figures, charts and tables", async () => {
      await pickRange(owner);
      assertEquals(await figure(owner, "conversations"), "5");
      assertEquals(await figure(owner, "ai_resolution_rate"), "50%");
      assertEquals(await figure(owner, "first_response_median"), "10 min");
      assertEquals(await figure(owner, "resolution_median"), "20 min");
      const bars = await owner.locator('figure:has-text("Messages per day") g.bar title')
        .allTextContents();
      assertEquals(bars, [
        "2026-01-31: Visitor 2, AI 2, Human 1",
        "2026-02-01: Visitor 3, AI 3, Human 1",
      ]);
      const agents = owner.locator('table[data-table="agents"] tbody tr');
      assertEquals(await agents.count(), 2);
      // Sorting by the first response puts the slower agent first.
      await owner.locator(
        'table[data-table="agents"] th[data-key="first_response_median_seconds"] button',
      )
        .click();
      assertEquals(await agents.first().locator("td").first().textContent(), "Abe Admin");
      assertEquals(
        await owner.locator('table.heat td[title="Sat 22:00: 1"]').textContent(),
        "1",
      );
      await shot(owner, "reports-desktop");
    });

    await t.step("filtering by an agent changes the figures and the charts", async () => {
      const form = owner.getByRole("search", { name: "Report period and filters" });
      await form.locator("select[name=agent]").selectOption(String(h.amy));
      await owner.waitForFunction(() =>
        document.querySelector('[data-figure="conversations"] .counter-value')?.textContent === "1"
      );
      assertEquals(await figure(owner, "first_response_median"), "5 min");
      const bars = await owner.locator('figure:has-text("Messages per day") g.bar title')
        .allTextContents();
      assertEquals(bars, [
        "2026-01-31: Visitor 0, AI 0, Human 0",
        "2026-02-01: Visitor 1, AI 1, Human 1",
      ]);
      assertEquals(await owner.locator('table[data-table="agents"] tbody tr').count(), 1);
      await shot(owner, "reports-agent-desktop");
    });

    await t.step("the agents table saves as CSV", async () => {
      const [download] = await Promise.all([
        owner.waitForEvent("download"),
        owner.getByRole("button", { name: "Download agents as CSV" }).click(),
      ]);
      const text = await Deno.readTextFile(await download.path());
      const lines = text.replace(/^\uFEFF/, "").split("\r\n").filter(Boolean);
      assertEquals(lines.length, 2);
      assertOk(lines[1]!.includes("Amy Agent,1,300,1800,1,1"), lines[1]);
    });

    await t.step("at phone width", async () => {
      const phone = await open(PHONE);
      await phone.goto(`${s.url}/dashboard#/reports`);
      await phone.locator("[data-figure=conversations]").waitFor();
      await pickRange(phone);
      const overflow = await phone.evaluate(() =>
        document.documentElement.scrollWidth - document.documentElement.clientWidth
      );
      assertEquals(overflow, 0, "nothing wider than the phone");
      await shot(phone, "reports-phone");
    });
    assertEquals(problems, []);
  } finally {
    await browser?.close();
    await s.stop();
    await fake.close();
  }
});
