/// <reference lib="dom" />
/**
 * The branding screen in headless Chromium: the preview shows the closed
 * widget (the launcher with its text, colour and position) and the open one,
 * both following the draft; it stays in view while the form scrolls, on a
 * desktop and at 390 px (where it comes first); options read as words with a
 * line on what each does, and every feature flag says what it does.
 * Screenshots under tests/output/.
 */
import type { Browser, Page } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL } from "../helpers/fixtures.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { dashboardSeed } from "../dashboard/dashboard_seed.ts";
import { waitUntil } from "../helpers/wait.ts";

const OUTPUT = new URL("../output/", import.meta.url);

Deno.test(
  "branding: launcher and open previews, in view, options in words",
  serverTestOptions,
  async (t) => {
    await Deno.mkdir(OUTPUT, { recursive: true });
    const s = await startTestServer({ seed: dashboardSeed() });
    let browser: Browser | null = null;
    const problems: string[] = [];
    const open = async (width: number, height: number): Promise<Page> => {
      const page = await (await browser!.newContext({ viewport: { width, height } })).newPage();
      page.on("pageerror", (e) => problems.push(e.message));
      await signInAt(page, `${s.url}/dashboard`, EMAIL.acmeOwner);
      await page.locator("body[data-screen]").waitFor();
      await page.goto(`${s.url}/dashboard#/bots/acme-helper/branding`);
      await page.locator("form.branding-form").waitFor();
      return page;
    };
    const inView = async (page: Page) => {
      const box = await page.locator(".preview-pane").boundingBox();
      const vh = page.viewportSize()!.height;
      return box !== null && box.y >= -1 && box.y < vh / 2;
    };
    try {
      browser = await launchChromium();

      await t.step("desktop: closed and open previews follow the draft", async () => {
        const page = await open(1280, 860);
        const form = page.locator("form.branding-form");
        const closed = page.frameLocator("iframe[data-preview=closed]");
        const opened = page.frameLocator("iframe[data-preview=open]");
        await closed.locator(".launcher").waitFor();
        await opened.locator(".panel, .root").first().waitFor();
        await form.locator("input[name='branding.launcher_text']").fill("Ask Ferry");
        await form.locator("select[name='branding.position']").selectOption("left");
        await closed.locator(".launcher", { hasText: "Ask Ferry" }).waitFor();
        const frameBox = (await page.locator("iframe[data-preview=closed]").boundingBox())!;
        await waitUntil(async () => {
          const launcher = await closed.locator(".launcher").boundingBox();
          return launcher !== null && launcher.x - frameBox.x < frameBox.width / 2;
        }, "the launcher moves to the left in the closed preview");
        // The preview redraws on each change: the launcher is visible once it settles.
        await closed.locator(".launcher").waitFor({ state: "visible" });

        // Options in words, each with one line on what it does.
        const words = (name: string) =>
          form.locator(`select[name='${name}'] option`).allInnerTexts();
        assertEquals(await words("branding.recommend_mode"), [
          "When asked",
          "When relevant",
          "Never",
        ]);
        assertEquals(await words("branding.proactive.frequency"), [
          "Once per visit",
          "Every page",
          "Once ever",
        ]);
        assertEquals(await words("branding.launcher"), ["Round button", "Side tab", "No button"]);
        const freq = form.locator("label.field", {
          has: page.locator("select[name='branding.proactive.frequency']"),
        });
        assertOk((await freq.locator(".hint").innerText()).length > 10);
        await form.locator("select[name='branding.proactive.frequency']").selectOption("always");
        assertOk((await freq.locator(".hint").innerText()).includes("every page"));
        // Every feature flag is described.
        const flags = form.locator("label.check.flag");
        assertEquals(await flags.count(), 8);
        for (const text of await flags.locator(".hint").allInnerTexts()) {
          assertOk(text.length > 20, text);
        }
        await page.screenshot({
          path: new URL("branding-preview-desktop.png", OUTPUT).pathname,
          fullPage: false,
        });
        await form.locator("select[name='branding.recommend_mode']").scrollIntoViewIfNeeded();
        assertOk(await inView(page), "the preview stays in view at the bottom of the form");
      });

      await t.step("390 px: the preview comes first and stays in view", async () => {
        const page = await open(390, 844);
        const closed = page.frameLocator("iframe[data-preview=closed]");
        await closed.locator(".launcher").waitFor();
        // The closed preview stays closed although the open one opened in the same tab.
        await waitUntil(
          async () => await closed.locator(".panel").isHidden(),
          "the closed preview shows the launcher, not the chat",
        );
        const openPanel = page.frameLocator("iframe[data-preview=open]").locator(".panel");
        await openPanel.waitFor();
        assertOk(await inView(page));
        await page.locator("select[name='branding.recommend_mode']").scrollIntoViewIfNeeded();
        assertOk(await inView(page), "still in view while editing the last options");
        await page.locator("input[name='branding.launcher_text']").scrollIntoViewIfNeeded();
        await page.locator("input[name='branding.launcher_text']").fill("Hi there");
        await page.frameLocator("iframe[data-preview=closed]").locator(".launcher", {
          hasText: "Hi there",
        }).waitFor();
        await new Promise((r) => setTimeout(r, 800)); // the last reload of both frames
        await page.frameLocator("iframe[data-preview=closed]").locator(".launcher").waitFor();
        await openPanel.waitFor();
        await page.screenshot({ path: new URL("branding-preview-phone.png", OUTPUT).pathname });
      });
      assertEquals(problems, []);
    } finally {
      await browser?.close();
      await s.stop();
    }
  },
);
