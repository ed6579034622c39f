/// <reference lib="dom" />
/**
 * Two-factor sign-in in the dashboard, in headless Chromium: an owner turns
 * it on from the Two-factor screen (the secret read from the page, the code
 * computed here per RFC 6238), keeps the recovery codes shown once, signs
 * out, signs in with a code, then with a recovery code. Screenshots go to
 * tests/output/.
 */
import type { Browser, Page } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, standardSeed } from "../helpers/fixtures.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { awayFromStepEdge, totpCode } from "../helpers/totp.ts";

const OUTPUT = new URL("../output/", import.meta.url);

Deno.test("two-factor sign-in in the dashboard", serverTestOptions, async (t) => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const s = await startTestServer({ seed: standardSeed() });
  let browser: Browser | null = null;
  const problems: string[] = [];
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: new URL(`two-factor-${name}.png`, OUTPUT).pathname, fullPage: true });
  try {
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    const signedIn = () => page.locator("body[data-screen]").waitFor();
    const signOut = async () => {
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.locator("form.login input[name=email]").waitFor();
    };
    let secret = "";
    let recoveryCodes: string[] = [];

    await t.step("the owner turns it on: QR code, typed secret, recovery codes", async () => {
      await signInAt(page, `${s.url}/dashboard`, EMAIL.acmeOwner);
      await signedIn();
      await page.goto(`${s.url}/dashboard#/two-factor`);
      await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
      const typed = page.locator(".two-factor-secret");
      await typed.waitFor();
      secret = (await typed.getAttribute("data-secret")) ?? "";
      assertOk(/^[A-Z2-7]{32}$/.test(secret), secret);
      // The QR code is an image that loaded (an SVG from a data: URL).
      const qrWidth = await page.locator("img.qr").evaluate((img) =>
        (img as HTMLImageElement).complete ? (img as HTMLImageElement).naturalWidth : 0
      );
      assertOk(qrWidth > 0, "the QR code did not load");
      await shot(page, "enrolment");
      await awayFromStepEdge();
      await page.locator("input[name=code]").fill(totpCode(secret));
      await page.getByRole("button", { name: "Confirm" }).click();
      await page.locator(".recovery-codes").waitFor();
      recoveryCodes = await page.locator(".recovery-codes li").allTextContents();
      assertEquals(recoveryCodes.length, 10);
      await shot(page, "recovery-codes");
      await page.getByRole("button", { name: "Done" }).click();
      await page.locator(".two-factor-on").waitFor();
      assertOk((await page.locator(".two-factor-on").textContent())?.includes("10 recovery codes"));
    });

    await t.step("signing in again asks for the code", async () => {
      await signOut();
      await signInAt(page, `${s.url}/dashboard`, EMAIL.acmeOwner);
      await page.locator("form.two-factor-step").waitFor();
      await page.locator("form.two-factor-step input[name=code]").fill("000000");
      await page.locator("form.two-factor-step input[name=code]").press("Enter");
      await page.locator("form.two-factor-step .form-error:not(:empty)").waitFor();
      await shot(page, "code-step");
      await awayFromStepEdge();
      // The confirm used this step's code: the next step's is the one accepted now.
      await page.locator("form.two-factor-step input[name=code]").fill(totpCode(secret, 1));
      await page.locator("form.two-factor-step input[name=code]").press("Enter");
      await signedIn();
    });

    await t.step("a recovery code signs in once", async () => {
      await signOut();
      await signInAt(page, `${s.url}/dashboard`, EMAIL.acmeOwner);
      await page.locator("form.two-factor-step input[name=code]").fill(recoveryCodes[0]!);
      await page.locator("form.two-factor-step input[name=code]").press("Enter");
      await signedIn();
      await page.goto(`${s.url}/dashboard#/two-factor`);
      await page.locator(".two-factor-on").waitFor();
      assertOk((await page.locator(".two-factor-on").textContent())?.includes("9 recovery codes"));
      await shot(page, "screen-on");
    });

    await t.step(
      "an agent turns it on from the inbox's Account panel and signs in with it",
      async () => {
        const inbox = await (await browser!.newContext({ viewport: { width: 1280, height: 860 } }))
          .newPage();
        inbox.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
        await signInAt(inbox, `${s.url}/inbox`, EMAIL.acmeAgent);
        await inbox.locator("button.account-toggle").click();
        const panel = inbox.locator(".account-panel");
        await panel.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
        const agentSecret =
          (await panel.locator(".two-factor-secret").getAttribute("data-secret"))!;
        assertOk(/^[A-Z2-7]{32}$/.test(agentSecret), agentSecret);
        await awayFromStepEdge();
        await panel.locator("input[name=code]").fill(totpCode(agentSecret));
        await panel.getByRole("button", { name: "Confirm" }).click();
        await panel.locator(".recovery-codes").waitFor();
        await panel.getByRole("button", { name: "Done" }).click();
        await panel.locator(".two-factor-on").waitFor();
        await shot(inbox, "inbox-on");
        // The inbox's sign-in form asks for the code.
        await inbox.context().close();
        const again = await (await browser!.newContext()).newPage();
        await signInAt(again, `${s.url}/inbox`, EMAIL.acmeAgent);
        await again.locator("form.two-factor-step").waitFor();
        await awayFromStepEdge();
        await again.locator("form.two-factor-step input[name=code]").fill(totpCode(agentSecret, 1));
        await again.locator("form.two-factor-step input[name=code]").press("Enter");
        await again.locator("button.account-toggle").waitFor();
        await again.context().close();
      },
    );
    assertEquals(problems, []);
  } finally {
    await browser?.close();
    await s.stop();
  }
});
