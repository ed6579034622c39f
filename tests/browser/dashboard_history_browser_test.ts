/// <reference lib="dom" />
/**
 * Conversation history in headless Chromium: the owner finds an old
 * conversation by a word from its text, narrows by status, exports the list
 * (the CSV file is downloaded and read back), opens the read-only transcript
 * where the visitor's markup is shown as text; a viewer sees the list without
 * the export. Screenshots at desktop and phone width under tests/output/.
 */
import type { Browser, Page } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL } from "../helpers/fixtures.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { dashboardSeed } from "../dashboard/dashboard_seed.ts";

const OUTPUT = new URL("../output/", import.meta.url);
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };

Deno.test("dashboard conversation history in headless Chromium", serverTestOptions, async (t) => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const s = await startTestServer({ seed: dashboardSeed(), env: { ...WIDGET_ENV } });
  let browser: Browser | null = null;
  const problems: string[] = [];
  const open = async (email: string, viewport = DESKTOP): Promise<Page> => {
    const context = await browser!.newContext({ viewport, acceptDownloads: true });
    const page = await context.newPage();
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("dialog", (d) => void d.accept());
    await signInAt(page, `${s.url}/dashboard`, email);
    await page.locator("body[data-screen]").waitFor();
    return page;
  };
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: new URL(`dashboard-${name}.png`, OUTPUT).pathname, fullPage: true });
  const converse = async (visitor: string, message: string) =>
    (await postStream(s.url, "acme-helper", { visitor_id: visitor, message })).events[0]!.data
      .conversation_id as string;
  try {
    const old = await converse("v_old", 'Parcel lost near Zanzibar <img src=x onerror="alert(1)">');
    await s.deps.sql`UPDATE conversations SET created_at = now() - interval '90 days'
                      WHERE public_id = ${old}`;
    for (let i = 0; i < 4; i++) await converse(`v_new${i}`, `Question number ${i} about invoices`);
    browser = await launchChromium();
    const owner = await open(EMAIL.acmeOwner);

    await t.step("the owner finds an old conversation by a word from its text", async () => {
      await owner.goto(`${s.url}/dashboard#/conversations`);
      await owner.locator("tr[data-conversation]").first().waitFor();
      assertEquals(await owner.locator("tr[data-conversation]").count(), 5);
      await shot(owner, "history-desktop");
      const search = owner.getByRole("search", { name: "Filter conversations" });
      await search.locator("input[name=q]").fill("zanzib");
      await search.getByRole("button", { name: "Search" }).click();
      await owner.getByText("1 conversation shown.").waitFor();
      assertEquals(
        await owner.locator("tr[data-conversation]").first().getAttribute("data-conversation"),
        old,
      );
      // The visitor's markup is text in the list.
      assertEquals(await owner.locator(".history-list img").count(), 0);
      await shot(owner, "history-search-desktop");
      await search.locator("select[name=state]").selectOption("human");
      await search.getByRole("button", { name: "Search" }).click();
      await owner.getByText("No conversation matches.").waitFor();
      await search.locator("select[name=state]").selectOption("");
      await search.getByRole("button", { name: "Search" }).click();
      await owner.getByText("1 conversation shown.").waitFor();
    });

    await t.step("the owner exports the filtered list as CSV", async () => {
      const search = owner.getByRole("search", { name: "Filter conversations" });
      const [download] = await Promise.all([
        owner.waitForEvent("download"),
        search.getByRole("button", { name: "Export CSV" }).click(),
      ]);
      assertOk(/^conversations-acme-\d{4}-\d\d-\d\d\.csv$/.test(download.suggestedFilename()));
      const text = await Deno.readTextFile(await download.path());
      const lines = text.replace(/^\uFEFF/, "").split("\r\n").filter(Boolean);
      assertEquals(lines.length, 2, text);
      assertOk(lines[0]!.startsWith("conversation_id,bot,"));
      assertOk(lines[1]!.startsWith(old), lines[1]);
      await owner.getByText(`Saved ${download.suggestedFilename()}.`).waitFor();
    });

    await t.step("a row opens the read-only transcript; markup stays text", async () => {
      await owner.locator(`tr[data-conversation="${old}"] a`).click();
      await owner.locator("ol.timeline li.message").first().waitFor();
      const first = owner.locator('ol.timeline li[data-role="visitor"] .entry-text').first();
      assertEquals(
        await first.textContent(),
        'Parcel lost near Zanzibar <img src=x onerror="alert(1)">',
      );
      assertEquals(await owner.locator("ol.timeline img").count(), 0);
      assertEquals(await owner.locator("textarea, [contenteditable]").count(), 0);
      await shot(owner, "history-transcript-desktop");
      await owner.getByRole("link", { name: "Back to the list" }).click();
      await owner.getByText("1 conversation shown.").waitFor(); // the filter was kept
    });

    await t.step("at phone width, and for a viewer without the export", async () => {
      const phone = await open(EMAIL.acmeOwner, PHONE);
      await phone.goto(`${s.url}/dashboard#/conversations`);
      await phone.locator("tr[data-conversation]").first().waitFor();
      await shot(phone, "history-phone");
      await phone.goto(`${s.url}/dashboard#/conversations/${old}`);
      await phone.locator("ol.timeline li.message").first().waitFor();
      await shot(phone, "history-transcript-phone");
      const viewer = await open(EMAIL.acmeViewer);
      await viewer.goto(`${s.url}/dashboard#/conversations`);
      await viewer.locator("tr[data-conversation]").first().waitFor();
      assertEquals(await viewer.getByRole("button", { name: "Export CSV" }).count(), 0);
    });
    assertEquals(problems, []);
  } finally {
    await browser?.close();
    await s.stop();
  }
});
