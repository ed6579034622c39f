/// <reference lib="dom" />
/**
 * Accounts in headless Chromium (docs/accounts.md): an administrator changes
 * their name and password on the dashboard's "Your account" (a wrong current
 * password shows beside its field); the other browser, signed in before,
 * lands on the sign-in form. Sessions ended from one browser context sign the
 * other out. An agent resets a forgotten password from the inbox's sign-in
 * form through the SMTP sink (the link from the received mail) and signs in
 * with the new one. Screenshots under tests/output/.
 */
import type { Browser, Page } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, PASSWORD } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { startSmtpSink } from "../helpers/smtp_sink.ts";
import { dashboardSeed } from "../dashboard/dashboard_seed.ts";

const OUTPUT = new URL("../output/", import.meta.url);
const DESKTOP = { width: 1280, height: 860 };

Deno.test("accounts in headless Chromium", serverTestOptions, async (t) => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const smtp = startSmtpSink();
  const s = await startTestServer({ seed: dashboardSeed(), env: { SMTP_URL: smtp.url } });
  let browser: Browser | null = null;
  const problems: string[] = [];
  const page = async (): Promise<Page> => {
    const context = await browser!.newContext({ viewport: DESKTOP });
    const p = await context.newPage();
    p.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    p.on("dialog", (d) => void d.accept());
    return p;
  };
  const dashboard = async (email: string, password = PASSWORD) => {
    const p = await page();
    await signInAt(p, `${s.url}/dashboard`, email, password);
    await p.locator("body[data-screen]").waitFor();
    return p;
  };
  const shot = (p: Page, name: string) =>
    p.screenshot({ path: new URL(`account-${name}.png`, OUTPUT).pathname, fullPage: true });
  try {
    browser = await launchChromium();

    await t.step(
      "profile and password change on the dashboard; the other browser is signed out",
      async () => {
        const other = await dashboard(EMAIL.acmeAdmin);
        const me = await dashboard(EMAIL.acmeAdmin);
        await me.goto(`${s.url}/dashboard#/account`);
        const profile = me.getByRole("form", { name: "Profile" });
        await profile.locator("input[name=name]").fill("Ada <i>Admin</i>");
        await profile.getByRole("button", { name: "Save profile" }).click();
        await me.getByText("Profile saved.").waitFor();
        // A new e-mail with a wrong current password: the error sits beside that field.
        await profile.locator("input[name=email]").fill("ada@acme.test");
        await profile.locator("input[name=current_password]").fill("not it");
        await profile.getByRole("button", { name: "Save profile" }).click();
        await profile.locator('[data-error-for="current_password"]', { hasText: "not correct" })
          .waitFor();
        await profile.locator("input[name=email]").fill(EMAIL.acmeAdmin);
        await shot(me, "profile-error");

        const password = me.getByRole("form", { name: "Password" });
        await password.locator("input[name=current_password]").fill(PASSWORD);
        await password.locator("input[name=password]").fill("a browser passphrase");
        await password.getByRole("button", { name: "Change password" }).click();
        await me.getByText(/Password changed\. \d+ other session/).waitFor();
        await shot(me, "password-changed");
        // This browser stays signed in: the sessions table shows only this session's row as current.
        await me.locator("tr[data-current=true]").waitFor();
        const profileNow = await http(s.url, "POST", "/api/dashboard/login", {
          body: { email: EMAIL.acmeAdmin, password: "a browser passphrase" },
        });
        assertEquals(profileNow.status, 200);
        assertEquals(profileNow.body.user.name, "Ada <i>Admin</i>");
        // The other browser's next call answers 401: it shows the sign-in form.
        await other.goto(`${s.url}/dashboard#/team`);
        await other.getByText("Your session has ended. Sign in again.").waitFor();
        await other.context().close();
        await me.context().close();
      },
    );

    await t.step(
      "a session ended from another browser context signs that browser out",
      async () => {
        const laptop = await dashboard(EMAIL.acmeOwner);
        const phone = await dashboard(EMAIL.acmeOwner);
        await laptop.goto(`${s.url}/dashboard#/account`);
        const rows = laptop.locator("tr[data-session]:not([data-current])");
        await rows.first().waitFor();
        const before = await rows.count();
        assertOk(before >= 1);
        await shot(laptop, "sessions");
        await laptop.getByRole("button", { name: "Sign out everywhere else" }).click();
        await laptop.locator("tr[data-session]:not([data-current])").first().waitFor({
          state: "detached",
        });
        await phone.goto(`${s.url}/dashboard#/bots`);
        await phone.getByText("Your session has ended. Sign in again.").waitFor();
        // The laptop carries on.
        await laptop.goto(`${s.url}/dashboard#/team`);
        await laptop.locator("body[data-screen=team]").waitFor();
        await laptop.context().close();
        await phone.context().close();
      },
    );

    await t.step("a forgotten password reset from the inbox's sign-in form", async () => {
      const form0 = await page();
      await form0.goto(`${s.url}/inbox`);
      await form0.getByRole("button", { name: "Forgot password?" }).click();
      const form = form0.getByRole("form", { name: "Forgot password" });
      await form.locator("input[name=email]").fill(EMAIL.acmeAgent);
      await form.getByRole("button", { name: "Send reset link" }).click();
      await form0.getByText(/If an account uses that address/).waitFor();
      await shot(form0, "forgot");
      const mails = await smtp.waitFor(1);
      const link = /https?:\/\/\S+#\/reset\/\S+/.exec(mails.at(-1)!.text)![0];
      const path = new URL(link);
      // A mail's link opens a new tab.
      await form0.context().close();
      const p = await page();
      await p.goto(`${s.url}${path.pathname}${path.hash}`);
      await p.locator("input[name=password]").fill("agent browser passphrase");
      await p.getByRole("button", { name: "Set new password" }).click();
      await p.getByText(/Your password is changed/).waitFor();
      await shot(p, "reset-done");
      await p.getByRole("link", { name: "Sign in" }).click();
      await p.locator("input[name=email]").fill(EMAIL.acmeAgent);
      await p.locator("input[name=password]").fill("agent browser passphrase");
      await p.locator("input[name=password]").press("Enter");
      await p.locator("button.account-toggle").waitFor();
      // The inbox's Account panel is the same view.
      await p.locator("button.account-toggle").click();
      await p.getByRole("form", { name: "Password" }).waitFor();
      await shot(p, "inbox-account");
      // The link works once.
      const again = await http(s.url, "POST", "/api/dashboard/password/reset", {
        body: { token: path.hash.split("#/reset/")[1], password: "another passphrase" },
      });
      assertEquals(again.status, 422);
    });

    assertEquals(problems, []);
  } finally {
    await browser?.close();
    await s.stop();
    await smtp.stop();
  }
});
