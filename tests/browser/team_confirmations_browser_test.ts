/// <reference lib="dom" />
/**
 * The Team screen in headless Chromium (issue 37, item 5): a second
 * invitation leaves the first one's link on the list, copyable; a role
 * change, a suspension, "Make owner", a revocation and a removal each ask
 * first, and cancelling changes nothing (checked through the API); the role
 * select never offers Owner; the invitee's page pre-fills the address, says
 * which workspace they joined and signs them in (inbox for an agent,
 * dashboard otherwise). Screenshots under tests/output/.
 */
import type { Browser, Dialog, Page } from "playwright-core";
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { D, dashboardSeed } from "../dashboard/dashboard_seed.ts";

const OUTPUT = new URL("../output/", import.meta.url);
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };

Deno.test("Team screen: links kept, confirmations, joining", serverTestOptions, async (t) => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const s = await startTestServer({ seed: dashboardSeed() });
  let browser: Browser | null = null;
  const problems: string[] = [];
  /** What the next confirm() answers; every dialog's text is kept. */
  let answer = false;
  const dialogs: string[] = [];
  const onDialog = (d: Dialog) => {
    dialogs.push(d.message());
    void (answer ? d.accept() : d.dismiss());
  };
  const watch = (page: Page) => {
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`console: ${m.text()}`);
    });
  };
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: new URL(`team-${name}.png`, OUTPUT).pathname, fullPage: true });
  const team = async () =>
    (await http(s.url, "GET", "/api/dashboard/team", { token: D.acme.owner })).body;
  const member = async (email: string) =>
    (await team()).members.find((m: { email: string }) => m.email === email);
  /** Clicks, expects one confirm() (cancelled unless `accept`), returns its text. */
  const confirmed = async (run: () => Promise<void>, accept = false) => {
    answer = accept;
    const before = dialogs.length;
    await run();
    for (let i = 0; i < 50 && dialogs.length === before; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assertEquals(dialogs.length, before + 1, "one confirmation asked");
    return dialogs.at(-1)!;
  };
  try {
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: DESKTOP });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: s.url });
    const owner = await context.newPage();
    watch(owner);
    owner.on("dialog", onDialog);
    await signInAt(owner, `${s.url}/dashboard`, EMAIL.acmeOwner);
    await owner.locator("body[data-screen]").waitFor();
    await owner.goto(`${s.url}/dashboard#/team`);
    const form = owner.getByRole("form", { name: "Invite a teammate" });

    const invite = async (email: string, role: string) => {
      await form.locator("input[name=email]").fill(email);
      await form.locator("select[name=role]").selectOption(role);
      await form.getByRole("button", { name: "Invite" }).click();
      await owner.locator(`tr[data-invitation="${email}"]`).waitFor();
    };

    let alexLink = "";
    await t.step("alex's link stays listed after vera's invitation, with Copy", async () => {
      // The screen draws its form once the team is loaded.
      await form.locator("select[name=role] option").first().waitFor({ state: "attached" });
      const options = await form.locator("select[name=role] option").allTextContents();
      assertEquals(options, ["Administrator", "Agent", "Viewer"]);
      await invite("alex@acme.test", "agent");
      alexLink = await owner.getByLabel("Invitation link", { exact: true }).inputValue();
      await invite("vera@acme.test", "administrator");
      const kept = owner.getByLabel("Invitation link for alex@acme.test");
      assertEquals(await kept.inputValue(), alexLink);
      const copy = owner.getByRole("button", { name: "Copy the link for alex@acme.test" });
      await copy.click();
      await owner.waitForFunction(
        (email) =>
          document.querySelector(`button[aria-label="Copy the link for ${email}"]`)
            ?.textContent === "Copied",
        "alex@acme.test",
      );
      assertEquals(await owner.evaluate(() => navigator.clipboard.readText()), alexLink);
      await shot(owner, "links-desktop");
      await owner.setViewportSize(PHONE);
      await shot(owner, "links-phone");
      await owner.setViewportSize(DESKTOP);
    });

    await t.step("role change, suspension, make owner: asked first, cancel keeps", async () => {
      const row = owner.locator('tr[data-member="agent@acme.test"]');
      const select = row.locator("select[name=role]");
      assertEquals(await select.locator("option").allTextContents(), [
        "Administrator",
        "Agent",
        "Viewer",
      ]);
      const asked = await confirmed(() => select.selectOption("administrator").then(() => {}));
      assertMatch(asked, /from Agent to Administrator/);
      assertEquals(await select.inputValue(), "agent");
      assertEquals((await member("agent@acme.test")).role, "agent");

      assertMatch(
        await confirmed(() => row.getByRole("button", { name: "Suspend" }).click()),
        /Suspend/,
      );
      assertEquals((await member("agent@acme.test")).state, "active");

      assertMatch(
        await confirmed(() => row.getByRole("button", { name: "Make owner" }).click()),
        /owner/,
      );
      assertEquals((await member("agent@acme.test")).role, "agent");

      // Accepted, the change is made.
      await confirmed(() => select.selectOption("viewer").then(() => {}), true);
      await owner.getByText("Role changed.").waitFor();
      assertEquals((await member("agent@acme.test")).role, "viewer");
      await confirmed(() => row.getByRole("button", { name: "Suspend" }).click(), true);
      await row.getByRole("button", { name: "Restore" }).waitFor();
      assertEquals((await member("agent@acme.test")).state, "suspended");
    });

    await t.step("revocation and removal: asked first, cancel keeps", async () => {
      const vera = owner.locator('tr[data-invitation="vera@acme.test"]');
      assertMatch(
        await confirmed(() => vera.getByRole("button", { name: "Revoke" }).click()),
        /vera@acme\.test/,
      );
      assertOk(
        (await team()).invitations.some((i: { email: string }) => i.email === "vera@acme.test"),
      );
      const row = owner.locator('tr[data-member="agent@acme.test"]');
      assertMatch(
        await confirmed(() => row.getByRole("button", { name: "Remove" }).click()),
        /Remove/,
      );
      assertOk(await member("agent@acme.test"));
    });

    await t.step(
      "the invitee's page pre-fills the address, names the workspace, signs in",
      async () => {
        const joiner = await browser!.newContext({ viewport: PHONE });
        const alex = await joiner.newPage();
        watch(alex);
        await alex.goto(alexLink);
        await alex.getByText("Join Acme Inc").waitFor();
        assertEquals(await alex.locator("input[name=email]").inputValue(), "alex@acme.test");
        await alex.locator("input[name=name]").fill("Alex");
        await alex.locator("input[name=password]").fill("alex's new password");
        await alex.getByRole("button", { name: "Join" }).click();
        await alex.getByText("Welcome to Acme Inc").waitFor();
        await alex.getByText("You joined Acme Inc as agent").waitFor();
        assertEquals(alex.url().includes("#/invitation/"), false);
        await shot(alex, "welcome-phone");
        await alex.getByRole("link", { name: "Open the inbox" }).click();
        await alex.locator("body[data-ready]").waitFor();
        await joiner.close();

        const veraLink = (await team()).invitations
          .find((i: { email: string }) => i.email === "vera@acme.test").link as string;
        const other = await browser!.newContext({ viewport: DESKTOP });
        const vera = await other.newPage();
        watch(vera);
        await vera.goto(veraLink);
        await vera.locator("input[name=name]").fill("Vera");
        await vera.locator("input[name=password]").fill("vera's new password");
        await vera.getByRole("button", { name: "Join" }).click();
        await vera.getByRole("link", { name: "Open the dashboard" }).click();
        await vera.locator("body[data-screen]").waitFor();
        await vera.getByText("Vera").first().waitFor();
        await other.close();
      },
    );
    assertEquals(problems, []);
  } finally {
    await browser?.close();
    await s.stop();
  }
});
