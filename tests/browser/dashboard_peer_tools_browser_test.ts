/// <reference lib="dom" />
/**
 * The small tools peers give, in headless Chromium: "Send test event" on a
 * webhook endpoint (the receiver gets the signed ping, the deliveries list
 * it); "Test" on a provider key typed in before saving (works, then refused
 * with its status, in words); an API token a week from expiry warned about,
 * and "Replace" showing the new token once. Screenshots under tests/output/.
 */
import type { Browser, Page } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { startWebhookReceiver, verifyWebhook } from "../helpers/webhook_receiver.ts";
import { D, dashboardSeed } from "../dashboard/dashboard_seed.ts";

const OUTPUT = new URL("../output/", import.meta.url);

Deno.test("dashboard peer tools in headless Chromium", serverTestOptions, async (t) => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const receiver = startWebhookReceiver();
  const ai = startFakeAi();
  const seed = dashboardSeed();
  const ownerRow = seed.workspaces[0]!.users.find((u) => u.email === "owner@acme.test")!;
  (ownerRow.tokens as { name: string; token: string; ability: string; expires_at?: string }[])
    .push({
      name: "CRM sync",
      token: "acme-owner-api-soon-tok-2",
      ability: "api",
      expires_at: new Date(Date.now() + 3.5 * 86_400_000).toISOString(),
    });
  const s = await startTestServer({
    seed,
    env: {
      AI_BASE_URL: ai.baseUrl,
      WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${receiver.port}`,
      WEBHOOK_POLL_MS: "50",
    },
  });
  let browser: Browser | null = null;
  const problems: string[] = [];
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: new URL(`dashboard-${name}.png`, OUTPUT).pathname, fullPage: true });
  try {
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("dialog", (d) => void d.accept());
    await signInAt(page, `${s.url}/dashboard`, EMAIL.acmeOwner);
    await page.locator("body[data-screen]").waitFor();

    await t.step("Send test event: a signed ping, listed in the deliveries", async () => {
      const url = `${receiver.url}/hook`;
      const created = await http(s.url, "POST", "/api/dashboard/webhooks", {
        token: D.acme.owner,
        body: { url, events: ["lead.captured"] },
      });
      assertEquals(created.status, 201, created.text);
      await page.goto(`${s.url}/dashboard#/webhooks`);
      const card = page.locator(`article[data-endpoint="${url}"]`);
      await card.getByRole("button", { name: "Send test event" }).click();
      const [hit] = await receiver.waitFor(1);
      verifyWebhook(created.body.data.secret, hit!);
      assertEquals(hit!.json.type, "ping");
      await card.locator('tr[data-delivery="ping"]').waitFor();
      await shot(page, "webhook-test-event");
    });

    await t.step("Test a provider key before saving: works, then refused, in words", async () => {
      await page.goto(`${s.url}/dashboard#/keys`);
      const row = page.locator('tr[data-provider="provider_4"]');
      await row.locator("input[name=api_key]").fill("sk-typed-in-browser-1234");
      await row.getByRole("button", { name: "Test" }).click();
      const outcome = row.locator('[data-key-test="provider_4"]');
      await page.waitForFunction(
        () =>
          document.querySelector('[data-key-test="provider_4"]')?.textContent === "The key works.",
      );
      ai.mode = "unauthorized";
      await row.getByRole("button", { name: "Test" }).click();
      await page.waitForFunction(() =>
        document.querySelector('[data-key-test="provider_4"]')?.textContent?.includes("(401)")
      );
      assertEquals(await outcome.textContent(), "The provider refused the key (401).");
      assertEquals(ai.requests.at(-1)!.authorization, "Bearer sk-typed-in-browser-1234");
      await shot(page, "provider-key-test");
    });

    await t.step(
      "a token a week from expiry is warned about; Replace shows a new one",
      async () => {
        await page.goto(`${s.url}/dashboard#/api-tokens`);
        const warning = page.locator('[data-expires-soon="CRM sync"]');
        await warning.waitFor();
        assertOk(/Expires in [34] days/.test((await warning.textContent()) ?? ""));
        await page.locator('tr[data-token="CRM sync"]').getByRole("button", { name: "Replace" })
          .click();
        const secret = page.locator("input.secret");
        await secret.waitFor();
        const token = await secret.inputValue();
        assertEquals((await http(s.url, "GET", "/api/v1/chatbots", { token })).status, 200);
        // The list is read again after the secret is shown: wait for the second row.
        await page.locator('tr[data-token="CRM sync"]').nth(1).waitFor();
        assertEquals(await page.locator('tr[data-token="CRM sync"]').count(), 2);
        await shot(page, "api-token-replace");
      },
    );
    assertEquals(problems, []);
  } finally {
    await browser?.close();
    await s.stop();
    await receiver.stop();
    await ai.close();
  }
});
