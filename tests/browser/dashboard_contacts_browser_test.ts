/// <reference lib="dom" />
/**
 * The dashboard's Contacts screen in headless Chromium: an owner searches a
 * contact by part of the address, opens it (conversations, leads, device),
 * downloads its data as JSON (holding what the visitor wrote), and erases it
 * behind the confirmation; the list no longer shows it, and the other contact
 * stays. Screenshots under tests/output/.
 */
import type { Browser, Page } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL } from "../helpers/fixtures.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { dashboardSeed } from "../dashboard/dashboard_seed.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";

const OUTPUT = new URL("../output/", import.meta.url);
const SENTENCE = "Please cancel my order for the blue kettle";

Deno.test("dashboard contacts screen in headless Chromium", serverTestOptions, async (t) => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const fake = startFakeAi({ reply: "Happy to help." });
  const s = await startTestServer({
    seed: dashboardSeed(),
    env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
  });
  let browser: Browser | null = null;
  const problems: string[] = [];
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: new URL(`dashboard-${name}.png`, OUTPUT).pathname, fullPage: true });
  try {
    for (
      const [visitor, name, email, says] of [
        ["v_br_marta", "Marta Kettle", "marta.kettle@example.org", SENTENCE],
        ["v_br_other", "Olaf Other", "olaf@example.org", "Do you ship to Norway"],
      ]
    ) {
      const r = await postStream(s.url, "acme-helper", {
        visitor_id: visitor,
        message: says,
        meta: { visitor: { name, email } },
      });
      assertEquals(r.status, 200, r.text);
    }
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
    await signInAt(page, `${s.url}/dashboard`, EMAIL.acmeOwner);
    await page.locator("body[data-screen]").waitFor();

    await t.step("search by part of the address, open the contact", async () => {
      await page.getByRole("link", { name: "Contacts" }).click();
      await page.locator('body[data-screen="contacts"]').waitFor();
      await page.locator("tr[data-contact]").nth(1).waitFor();
      await shot(page, "contacts-list-desktop");
      const search = page.getByRole("search", { name: "Search contacts" });
      await search.locator("input[name=q]").fill("kettle@");
      await search.getByRole("button", { name: "Search" }).click();
      await page.waitForFunction(() => document.querySelectorAll("tr[data-contact]").length === 1);
      await page.getByRole("link", { name: "Marta Kettle" }).click();
      await page.locator("section.contact").waitFor();
      await page.locator("dd", { hasText: "marta.kettle@example.org" }).first().waitFor();
      await shot(page, "contact-detail-desktop");
    });

    await t.step("download the contact's data as JSON", async () => {
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("button", { name: "Download data (JSON)" }).click(),
      ]);
      const path = await download.path();
      const data = JSON.parse(await Deno.readTextFile(path!));
      assertEquals(data.format, "parley.contact_export");
      assertOk(JSON.stringify(data).includes(SENTENCE));
      assertOk(!JSON.stringify(data).includes("olaf@example.org"));
    });

    await t.step("erase it behind the confirmation", async () => {
      await page.getByRole("button", { name: "Erase contact…" }).click();
      const dialog = page.getByRole("dialog");
      await dialog.getByText("This cannot be undone.").waitFor();
      await shot(page, "contact-erase-confirm-desktop");
      await dialog.getByRole("button", { name: "Erase for good" }).click();
      await page.locator('body[data-screen="contacts"]').waitFor();
      await page.locator("section.contacts").waitFor();
      await page.getByRole("link", { name: "Olaf Other" }).waitFor();
      assertEquals(await page.getByRole("link", { name: "Marta Kettle" }).count(), 0);
      await shot(page, "contacts-after-erase-desktop");
      const left = await s.deps.sql`
        SELECT count(*)::int AS n FROM messages WHERE content = ${SENTENCE}`;
      assertEquals(left[0]!.n, 0);
    });
    assertEquals(problems, []);
  } finally {
    await browser?.close();
    await s.stop();
    await fake.close();
  }
});
