/// <reference lib="dom" />
/**
 * The dashboard's part 2 screens in headless Chromium: an owner creates a tag
 * and a shared canned reply in Inbox settings and invites an agent (the SMTP
 * sink catches the e-mail); the agent follows the link, sets a password,
 * signs in to /inbox and uses both. The owner creates an API token, sees it
 * once, calls GET /api/v1/me with it, revokes it, and the next call answers
 * 401. A viewer sees the settings read-only. Screenshots at desktop and phone
 * width under tests/output/.
 */
import type { Browser, Page } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { startSmtpSink } from "../helpers/smtp_sink.ts";
import { dashboardSeed } from "../dashboard/dashboard_seed.ts";

const OUTPUT = new URL("../output/", import.meta.url);
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };

Deno.test("dashboard settings screens in headless Chromium", serverTestOptions, async (t) => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const smtp = startSmtpSink();
  const s = await startTestServer({
    seed: dashboardSeed(),
    env: { ...WIDGET_ENV, SMTP_URL: smtp.url },
  });
  let browser: Browser | null = null;
  const problems: string[] = [];
  const open = async (email: string, viewport = DESKTOP): Promise<Page> => {
    const context = await browser!.newContext({ viewport });
    const page = await context.newPage();
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`console: ${m.text()}`);
    });
    page.on("dialog", (d) => void d.accept());
    await signInAt(page, `${s.url}/dashboard`, email);
    await page.locator("body[data-screen]").waitFor();
    return page;
  };
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: new URL(`dashboard-${name}.png`, OUTPUT).pathname, fullPage: true });
  try {
    browser = await launchChromium();
    const owner = await open(EMAIL.acmeOwner);

    await t.step("an owner adds a tag and a canned reply; agents find both", async () => {
      await owner.goto(`${s.url}/dashboard#/inbox-settings`);
      const newTag = owner.getByRole("form", { name: "New tag" });
      await newTag.locator("input[name=name]").fill("VIP <b>customer</b>");
      await newTag.getByRole("button", { name: "Add tag" }).click();
      await owner.locator('tr[data-tag="VIP <b>customer</b>"]').waitFor();
      const reply = owner.getByRole("form", { name: "New canned reply" });
      await reply.locator("input[name=title]").fill("Shipping times");
      await reply.locator("input[name=shortcut]").fill("ship");
      await reply.locator("textarea[name=body]").fill("We ship within 2 working days.");
      await reply.getByRole("button", { name: "Add reply" }).click();
      await owner.locator('tr[data-canned="Shipping times"]').waitFor();
      // Typed markup stays text.
      assertEquals(await owner.locator("tr[data-tag] b").count(), 0);
      const tags = await http(s.url, "GET", "/api/agent/tags", { token: T.acme.agent.agent });
      assertOk(
        (tags.body.tags as { name: string }[]).some((x) => x.name === "VIP <b>customer</b>"),
      );
      const canned = await http(s.url, "GET", "/api/agent/canned", { token: T.acme.agent.agent });
      assertOk(
        (canned.body.canned as { shortcut: string }[]).some((c) => c.shortcut === "/ship"),
      );
      await shot(owner, "inbox-settings-desktop");
    });

    await t.step("inline edits have Cancel, which puts back what is stored", async () => {
      const row = owner.locator('tr[data-tag="VIP <b>customer</b>"]');
      const name = row.locator("input[name=name]");
      const save = row.getByRole("button", { name: "Save" });
      const cancel = row.getByRole("button", { name: "Cancel" });
      assertOk(await save.isDisabled(), "nothing to save before a change");
      assertOk(await cancel.isDisabled(), "nothing to cancel before a change");
      await name.fill("VIP, renamed by mistake");
      assertOk(await cancel.isEnabled(), "Cancel once something changed");
      await cancel.click();
      assertEquals(await name.inputValue(), "VIP <b>customer</b>");
      assertOk(await save.isDisabled(), "back to nothing to save");
      const canned = owner.locator('tr[data-canned="Shipping times"]');
      await canned.getByRole("button", { name: "Edit" }).click();
      const edit = owner.getByRole("form", { name: "Edit Shipping times" });
      await edit.locator("input[name=title]").fill("Not what I meant");
      await edit.getByRole("button", { name: "Cancel" }).click();
      await owner.locator('tr[data-canned="Shipping times"]').waitFor();
      assertEquals(await owner.getByRole("form", { name: "Edit Shipping times" }).count(), 0);
      // Nothing reached the server.
      const tags = await http(s.url, "GET", "/api/agent/tags", { token: T.acme.agent.agent });
      assertOk(
        (tags.body.tags as { name: string }[]).some((x) => x.name === "VIP <b>customer</b>"),
      );
      const replies = await http(s.url, "GET", "/api/agent/canned", {
        token: T.acme.agent.agent,
      });
      assertOk(
        (replies.body.canned as { title: string }[]).every((c) => c.title !== "Not what I meant"),
      );
    });

    await t.step("an invited agent sets a password, signs in to /inbox, uses both", async () => {
      await owner.goto(`${s.url}/dashboard#/team`);
      const form = owner.getByRole("form", { name: "Invite a teammate" });
      await form.locator("input[name=email]").fill("nina@acme.test");
      await form.locator("select[name=role]").selectOption("agent");
      await form.getByRole("button", { name: "Invite" }).click();
      await owner.getByText("Invitation e-mailed to nina@acme.test.").waitFor();
      await owner.locator('tr[data-invitation="nina@acme.test"]').waitFor();
      await shot(owner, "team-desktop");
      const [mail] = await smtp.waitFor(1);
      const link = /https?:\/\/\S+#\/invitation\/\S+/.exec(mail!.text)![0];
      const context = await browser!.newContext({ viewport: DESKTOP });
      const nina = await context.newPage();
      nina.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
      await nina.goto(link);
      await nina.getByText("Join Acme Inc").waitFor();
      await nina.locator("input[name=name]").fill("Nina");
      await nina.locator("input[name=password]").fill("nina's new password");
      await nina.getByRole("button", { name: "Join" }).click();
      // Joining signs the agent in: the inbox opens without another sign-in.
      await nina.getByText("Welcome to Acme Inc").waitFor();
      const conversation = (await postStream(s.url, "acme-helper", {
        visitor_id: "v_nina",
        message: "When do you ship?",
      })).events[0]!.data.conversation_id as string;
      await nina.getByRole("link", { name: "Open the inbox" }).click();
      // The link names BASE_URL's host, so only the path is compared.
      await nina.waitForURL(/\/inbox$/);
      await nina.locator("body[data-ready]").waitFor();
      await nina.locator(`li.row[data-id="${conversation}"]`).click();
      const composer = nina.locator("textarea.composer-input");
      await composer.click();
      await composer.pressSequentially("/shi");
      await nina.locator(".canned-picker li", { hasText: "/ship" }).waitFor();
      await composer.press("Tab");
      assertEquals(await composer.inputValue(), "We ship within 2 working days.");
      await composer.press("Enter");
      await nina.locator(".msg-agent .msg-body", { hasText: "We ship within 2 working days." })
        .waitFor();
      await nina.locator("select.add-tag").selectOption({ label: "VIP <b>customer</b>" });
      await nina.locator(".visitor-pane .tag", { hasText: "VIP <b>customer</b>" }).waitFor();
      await context.close();
    });

    await t.step("an owner creates a token, sees it once, uses it, revokes it", async () => {
      await owner.goto(`${s.url}/dashboard#/api-tokens`);
      const form = owner.getByRole("form", { name: "New API token" });
      await form.locator("input[name=name]").fill("Browser test");
      await form.getByRole("button", { name: "Create token" }).click();
      const value = owner.getByLabel("New token");
      await value.waitFor();
      const token = await value.inputValue();
      assertOk(token.includes("|"), token);
      assertEquals((await http(s.url, "GET", "/api/v1/me", { token })).status, 200);
      await shot(owner, "api-tokens-desktop");
      await owner.reload();
      await owner.locator('tr[data-token="Browser test"]').waitFor();
      assertEquals(await owner.getByLabel("New token").count(), 0, "shown once");
      await owner.locator('tr[data-token="Browser test"]').getByRole("button", { name: "Revoke" })
        .click();
      await owner.locator('tr[data-token="Browser test"] .pill', { hasText: "revoked" }).waitFor();
      assertEquals((await http(s.url, "GET", "/api/v1/me", { token })).status, 401);
    });

    await t.step("a viewer sees the settings and cannot change them", async () => {
      const viewer = await open(EMAIL.acmeViewer);
      await viewer.goto(`${s.url}/dashboard#/inbox-settings`);
      await viewer.locator('tr[data-canned="Shipping times"]').waitFor();
      assertEquals(await viewer.getByRole("form", { name: "New tag" }).count(), 0);
      assertEquals(await viewer.getByRole("button", { name: "Delete" }).count(), 0);
      await viewer.context().close();
    });

    await t.step("phone width: no sideways scrolling", async () => {
      const phone = await open(EMAIL.acmeOwner, PHONE);
      for (const screen of ["team", "inbox-settings", "api-tokens"]) {
        await phone.goto(`${s.url}/dashboard#/${screen}`);
        await phone.locator(`body[data-screen="${screen}"]`).waitFor();
        const wide = await phone.evaluate(() => document.documentElement.scrollWidth);
        assertOk(wide <= PHONE.width, `${screen} is ${wide}px wide`);
        await shot(phone, `${screen}-phone`);
      }
      await phone.context().close();
    });

    assertEquals(problems, []);
  } finally {
    await browser?.close();
    await s.stop();
    await smtp.stop();
  }
});
