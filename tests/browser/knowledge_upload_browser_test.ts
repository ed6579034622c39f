/// <reference lib="dom" />
/**
 * Uploading knowledge files on a bot's knowledge page in headless Chromium:
 * several files dropped at once on the card (a PDF with headings, a Q&A CSV,
 * an encrypted PDF, a file of another type) each get their own line with a
 * progress bar; the refused one says why beside its name; the others become
 * sources that reach Ready (or Failed, with the encrypted PDF's reason in the
 * table) without a reload. The file picker takes files too. Screenshots at
 * desktop and phone width under tests/output/.
 */
import { Buffer } from "node:buffer";
import type { Browser, Page } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL } from "../helpers/fixtures.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { dashboardSeed } from "../dashboard/dashboard_seed.ts";
import { encryptedPdf, pdfWithHeadings } from "../helpers/knowledge_files.ts";

const OUTPUT = new URL("../output/", import.meta.url);
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };

Deno.test("knowledge file uploads in headless Chromium", serverTestOptions, async (t) => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const fake = startFakeAi({ reply: "Noted." });
  const s = await startTestServer({ seed: dashboardSeed(), env: { AI_BASE_URL: fake.baseUrl } });
  let browser: Browser | null = null;
  const problems: string[] = [];
  const open = async (viewport = DESKTOP): Promise<Page> => {
    const context = await browser!.newContext({ viewport });
    const page = await context.newPage();
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("console", (m) => {
      // The 422 the test provokes on purpose (a file of another type) is logged by the browser.
      if (m.type() === "error" && !m.text().includes("status of 422")) {
        problems.push(`console: ${m.text()}`);
      }
    });
    await signInAt(page, `${s.url}/dashboard`, EMAIL.acmeOwner);
    await page.locator("body[data-screen]").waitFor();
    await page.goto(`${s.url}/dashboard#/bots/acme-helper/knowledge`);
    await page.locator("[data-drop-zone]").waitFor();
    return page;
  };
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: new URL(`dashboard-${name}.png`, OUTPUT).pathname, fullPage: true });
  const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
  try {
    browser = await launchChromium();
    const owner = await open();
    const pdf = await pdfWithHeadings([[{
      heading: "Opening hours",
      paragraphs: ["The showroom in Tromsø opens at ten on Saturdays."],
    }]]);
    const files = [
      { name: "showroom.pdf", type: "application/pdf", data: b64(pdf) },
      {
        name: "faq.csv",
        type: "text/csv",
        data: b64(new TextEncoder().encode("question,answer\nDo you gift wrap?,Yes, for free.\n")),
      },
      { name: "locked.pdf", type: "application/pdf", data: b64(await encryptedPdf()) },
      { name: "tool.exe", type: "application/octet-stream", data: b64(new Uint8Array([77, 90])) },
    ];

    await t.step("four files dropped at once: one line each, the wrong type refused", async () => {
      // A real drop: a DataTransfer of File objects dispatched on the zone.
      await owner.locator("[data-drop-zone]").evaluate((zone, list) => {
        const dt = new DataTransfer();
        for (const f of list) {
          const bytes = Uint8Array.from(atob(f.data), (c) => c.charCodeAt(0));
          dt.items.add(new File([bytes], f.name, { type: f.type }));
        }
        zone.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true }));
        zone.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true }));
      }, files);
      for (const name of ["showroom.pdf", "faq.csv", "locked.pdf"]) {
        await owner.locator(`li[data-upload="${name}"][data-result="uploaded"]`).waitFor();
      }
      const refused = owner.locator('li[data-upload="tool.exe"][data-result="refused"]');
      await refused.waitFor();
      assertOk((await refused.innerText()).includes(".pdf"), await refused.innerText());
      assertEquals(await owner.locator("li[data-upload] progress").count(), 4);
    });

    await t.step("the sources reach Ready, the encrypted PDF Failed with its reason", async () => {
      const row = (title: string) => owner.locator("tr[data-source]", { hasText: title });
      await row("showroom.pdf").and(owner.locator('[data-status="ready"]')).waitFor({
        timeout: 30_000,
      });
      await row("faq.csv").and(owner.locator('[data-status="ready"]')).waitFor({ timeout: 30_000 });
      const locked = row("locked.pdf").and(owner.locator('[data-status="failed"]'));
      await locked.waitFor({ timeout: 30_000 });
      assertOk(
        (await locked.locator("[data-reason]").innerText()).includes("encrypted"),
        "the reason shows in the table",
      );
      assertOk((await row("faq.csv").innerText()).includes("Q&A"));
      await shot(owner, "knowledge-upload-desktop");
    });

    await t.step("the file picker takes files too", async () => {
      await owner.locator('[data-drop-zone] input[type="file"]').setInputFiles({
        name: "notes.md",
        mimeType: "text/markdown",
        buffer: Buffer.from("# Notes\n\nThe café serves cardamom buns."),
      });
      await owner.locator('li[data-upload="notes.md"][data-result="uploaded"]').waitFor();
      await owner.locator("tr[data-source]", { hasText: "notes.md" })
        .and(owner.locator('[data-status="ready"]')).waitFor({ timeout: 30_000 });
    });

    await t.step("phone width", async () => {
      const phone = await open(PHONE);
      await phone.locator("tr[data-source]", { hasText: "showroom.pdf" }).waitFor();
      await shot(phone, "knowledge-upload-phone");
    });
    assertEquals(problems, []);
  } finally {
    await browser?.close();
    await s.stop();
    await fake.close();
  }
});
