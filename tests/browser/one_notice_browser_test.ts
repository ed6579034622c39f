/// <reference lib="dom" />
/**
 * One notice at a time, cleared by the next action (the shell's rule, so every
 * screen keeps it): on Knowledge a success notice does not stay beside a later
 * error; on Team a red "already has an open invitation" does not stay after a
 * later invitation succeeds. Desktop; screenshots under tests/output/.
 */
import type { Browser } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL } from "../helpers/fixtures.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { dashboardSeed } from "../dashboard/dashboard_seed.ts";

const OUTPUT = new URL("../output/", import.meta.url);

Deno.test("one notice at a time on Knowledge and Team", serverTestOptions, async (t) => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const fake = startFakeAi({ reply: "ok" });
  const s = await startTestServer({ seed: dashboardSeed(), env: { AI_BASE_URL: fake.baseUrl } });
  let browser: Browser | null = null;
  const problems: string[] = [];
  try {
    browser = await launchChromium();
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } }))
      .newPage();
    page.on("pageerror", (e) => problems.push(e.message));
    await signInAt(page, `${s.url}/dashboard`, EMAIL.acmeOwner);
    await page.locator("body[data-screen]").waitFor();
    const status = page.locator(".status-line");
    const errors = () => page.locator("main .form-error, main .field-error").allInnerTexts();

    await t.step("Knowledge: a later error replaces the success notice", async () => {
      await page.goto(`${s.url}/dashboard#/bots/acme-helper/knowledge`);
      const content = page.locator("textarea[name=content]");
      await content.waitFor();
      await page.locator("input[name=title]").fill("Returns");
      await content.fill("Returns are free for 30 days.");
      await page.getByRole("button", { name: "Add source" }).click();
      await status.filter({ hasText: "being indexed" }).waitFor();
      await page.locator("input[name=title]").fill("Empty");
      await content.fill("");
      await page.getByRole("button", { name: "Add source" }).click();
      await page.waitForFunction(() =>
        [...document.querySelectorAll("main .form-error, main .field-error")]
          .some((e) => e.textContent?.trim())
      );
      assertEquals(await status.innerText(), "", "the success notice is gone");
      await page.screenshot({ path: new URL("one-notice-knowledge.png", OUTPUT).pathname });
    });

    await t.step("Team: a refused invitation's error goes when the next succeeds", async () => {
      await page.goto(`${s.url}/dashboard#/team`);
      const form = page.locator("form[aria-label='Invite a teammate']");
      await form.waitFor();
      const invite = async (email: string) => {
        await form.locator("input[name=email]").fill(email);
        await form.getByRole("button", { name: "Invite" }).click();
      };
      await invite("new.one@acme.test");
      await page.locator("main").getByText("new.one@acme.test").first().waitFor();
      // An address with an account is refused (inviting an open invitation again renews it).
      await invite("agent@acme.test");
      await page.waitForFunction(() =>
        [...document.querySelectorAll("main .form-error, main .field-error")]
          .some((e) => e.textContent?.trim())
      );
      assertOk((await errors()).join(" ").includes("account"), (await errors()).join(" | "));
      await invite("new.two@acme.test");
      await page.locator("main").getByText("new.two@acme.test").first().waitFor();
      await page.waitForFunction(() =>
        [...document.querySelectorAll("main .form-error, main .field-error")]
          .every((e) => !e.textContent?.trim())
      );
      await page.screenshot({ path: new URL("one-notice-team.png", OUTPUT).pathname });
    });
    assertEquals(problems, []);
  } finally {
    await browser?.close();
    await s.stop();
    await fake.close();
  }
});
