/// <reference lib="dom" />
/**
 * The dashboard's Webhooks screen in headless Chromium, against a local
 * receiver that checks every request with `standardwebhooks`: an owner adds
 * an endpoint for one event type and sees its secret once; a new
 * conversation is delivered, signed with that secret; the delivery shows as
 * succeeded and is resent under the same webhook-id; the secret is rotated
 * (the new one signs); the endpoint is disabled (nothing sent), enabled, and
 * deleted. A description with markup stays text; a viewer sees a note and no
 * form. Screenshots at desktop and phone width under tests/output/.
 */
import type { Browser, Page } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL } from "../helpers/fixtures.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { startWebhookReceiver, verifyWebhook } from "../helpers/webhook_receiver.ts";
import { dashboardSeed } from "../dashboard/dashboard_seed.ts";

const OUTPUT = new URL("../output/", import.meta.url);
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };

Deno.test("dashboard webhooks screen in headless Chromium", serverTestOptions, async (t) => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const receiver = startWebhookReceiver();
  const fake = startFakeAi({ reply: "Happy to help." });
  const s = await startTestServer({
    seed: dashboardSeed(),
    env: {
      ...WIDGET_ENV,
      AI_BASE_URL: fake.baseUrl,
      WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${receiver.port}`,
      WEBHOOK_POLL_MS: "50",
    },
  });
  let browser: Browser | null = null;
  const problems: string[] = [];
  const open = async (email: string, viewport = DESKTOP): Promise<Page> => {
    const context = await browser!.newContext({ viewport });
    const page = await context.newPage();
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("console", (m) => {
      // The 422 the test provokes on purpose (no event chosen) is logged by the browser.
      if (m.type() === "error" && !m.text().includes("status of 422")) {
        problems.push(`console: ${m.text()}`);
      }
    });
    page.on("dialog", (d) => void d.accept());
    await signInAt(page, `${s.url}/dashboard`, email);
    await page.locator("body[data-screen]").waitFor();
    return page;
  };
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: new URL(`dashboard-${name}.png`, OUTPUT).pathname, fullPage: true });
  const newConversation = async () => {
    const visitor = `v_dw_${crypto.randomUUID().slice(0, 8)}`;
    const r = await postStream(s.url, "acme-helper", { visitor_id: visitor, message: "Hi" });
    assertEquals(r.status, 200);
  };
  const hookUrl = `${receiver.url}/crm`;
  try {
    browser = await launchChromium();
    const owner = await open(EMAIL.acmeOwner);
    let secret = "";
    const card = owner.locator(`article[data-endpoint="${hookUrl}"]`);

    await t.step("an owner adds an endpoint and sees its secret once", async () => {
      await owner.goto(`${s.url}/dashboard#/webhooks`);
      const form = owner.getByRole("form", { name: "New webhook endpoint" });
      // No event chosen: the server's message lands beside the events.
      await form.locator("input[name=url]").fill(hookUrl);
      await form.getByRole("button", { name: "Add endpoint" }).click();
      await form.locator('[data-error-for="events"]').filter({ hasText: /./ }).waitFor();
      await form.locator("input[name=description]").fill("CRM <b>sync</b>");
      await form.locator('input[name=events][value="conversation.created"]').check();
      await form.getByRole("button", { name: "Add endpoint" }).click();
      const shown = owner.getByLabel("Signing secret");
      await shown.waitFor();
      secret = await shown.inputValue();
      assertOk(secret.startsWith("whsec_"), secret);
      await card.waitFor();
      await shot(owner, "webhooks-secret-desktop");
      assertEquals(await card.locator("b").count(), 0);
      await card.getByText("CRM <b>sync</b>").waitFor();
      await card.getByText("enabled", { exact: true }).waitFor();
      // Shown once: a reload lists the endpoint without it.
      await owner.reload();
      await card.waitFor();
      assertEquals(await owner.getByLabel("Signing secret").count(), 0);
    });

    await t.step("a delivery arrives signed, shows as succeeded, and is resent", async () => {
      await newConversation();
      const [hit] = await receiver.waitFor(1);
      verifyWebhook(secret, hit!);
      assertEquals(hit!.json.type, "conversation.created");
      await card.getByRole("button", { name: "Recent deliveries" }).click();
      const row = card.locator('tr[data-delivery="conversation.created"]');
      await row.waitFor();
      await row.locator(".pill", { hasText: "succeeded" }).waitFor();
      await row.getByText(/HTTP 204/).waitFor();
      await shot(owner, "webhooks-desktop");
      await row.getByRole("button", { name: "Resend" }).click();
      const hits = await receiver.waitFor(2);
      assertEquals(hits[1]!.id, hit!.id);
      verifyWebhook(secret, hits[1]!);
    });

    await t.step("rotating shows a new secret that signs from then on", async () => {
      await card.getByRole("button", { name: "Rotate secret" }).click();
      const shown = owner.getByLabel("Signing secret");
      await owner.waitForFunction(
        (old) =>
          (document.querySelector('input[aria-label="Signing secret"]') as HTMLInputElement)
            ?.value !== old,
        secret,
      );
      const rotated = await shown.inputValue();
      assertOk(rotated.startsWith("whsec_") && rotated !== secret);
      await card.getByText(/previous secret also signs until/).waitFor();
      await newConversation();
      const hits = await receiver.waitFor(3);
      verifyWebhook(rotated, hits[2]!);
    });

    await t.step("disabled, nothing is sent; enabled again; deleted", async () => {
      await card.getByRole("button", { name: "Disable" }).click();
      await card.getByText("disabled", { exact: true }).waitFor();
      await newConversation();
      await new Promise((r) => setTimeout(r, 500));
      assertEquals(receiver.received.length, 3);
      await card.getByRole("button", { name: "Enable" }).click();
      await card.getByText("enabled", { exact: true }).waitFor();
      await card.getByRole("button", { name: "Delete" }).click();
      await owner.getByText("No endpoints yet.").waitFor();
    });

    await t.step("a viewer sees a note, no form", async () => {
      const viewer = await open(EMAIL.acmeViewer);
      await viewer.goto(`${s.url}/dashboard#/webhooks`);
      await viewer.getByText("Webhooks are managed by owners and administrators.").waitFor();
      assertEquals(await viewer.getByRole("form", { name: "New webhook endpoint" }).count(), 0);
      await viewer.context().close();
    });

    await t.step("phone width: no sideways scrolling", async () => {
      await owner.goto(`${s.url}/dashboard#/webhooks`);
      const form = owner.getByRole("form", { name: "New webhook endpoint" });
      await form.locator("input[name=url]").fill(hookUrl);
      await form.locator('input[name=events][value="lead.captured"]').check();
      await form.getByRole("button", { name: "Add endpoint" }).click();
      await card.waitFor();
      const phone = await open(EMAIL.acmeOwner, PHONE);
      await phone.goto(`${s.url}/dashboard#/webhooks`);
      await phone.locator('body[data-screen="webhooks"]').waitFor();
      await phone.locator(`article[data-endpoint="${hookUrl}"]`).waitFor();
      const wide = await phone.evaluate(() => document.documentElement.scrollWidth);
      assertOk(wide <= PHONE.width, `webhooks is ${wide}px wide`);
      await shot(phone, "webhooks-phone");
      await phone.context().close();
    });

    assertEquals(problems, []);
  } finally {
    await browser?.close();
    await s.stop();
    await receiver.stop();
    await fake.close();
  }
});
