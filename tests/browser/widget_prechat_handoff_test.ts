/// <reference lib="dom" />
/**
 * The widget does not ask for an e-mail it already has: with the pre-chat
 * form taking the visitor's address, "Talk to a human" while nobody is online
 * says where the reply will go and offers no e-mail card; the request carries
 * the address, so the conversation keeps it. At 390 px; screenshot under
 * tests/output/.
 */
import type { Browser } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed } from "../helpers/fixtures.ts";
import { launchChromium } from "../helpers/browser.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { WIDGET_ENV } from "../widget/widget_client.ts";
import { waitUntil } from "../helpers/wait.ts";

const OUTPUT = new URL("../output/", import.meta.url);

Deno.test("the pre-chat e-mail is not asked again", serverTestOptions, async () => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const seed = standardSeed();
  (seed.workspaces[0]!.chatbots as unknown[]).push({
    name: "Acme Forms",
    public_key: "acme-forms",
    branding: {
      prechat: {
        enabled: true,
        fields: [{ name: "name", required: true }, { name: "email", required: true }],
      },
    },
  });
  const fake = startFakeAi({ reply: "Thanks Pat." });
  const s = await startTestServer({ seed, env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl } });
  let browser: Browser | null = null;
  const problems: string[] = [];
  try {
    browser = await launchChromium();
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } }))
      .newPage();
    page.on("pageerror", (e) => problems.push(e.message));
    await page.goto(`${s.url}/demo?key=acme-forms`);
    await page.locator(".launcher").click();
    const form = page.locator("form.prechat");
    await form.waitFor();
    await form.locator("input[name=name]").fill("Pat Visitor");
    await form.locator("input[name=email]").fill("pat@example.com");
    await form.locator("button[type=submit]").click();
    const input = page.locator("textarea[aria-label=Message]");
    await waitUntil(async () => await input.isEnabled(), "the composer");
    await input.fill("I need a person");
    await input.press("Enter");
    await page.locator(".msg.assistant .bubble", { hasText: "Thanks Pat." }).waitFor();
    await page.getByRole("button", { name: "Talk to a human" }).click();
    await page.getByText("We'll reply to pat@example.com").waitFor();
    assertEquals(await page.locator("form.email").count(), 0, "no second e-mail card");
    assertEquals(await page.getByText("Leave your e-mail").count(), 0);
    await page.screenshot({
      path: new URL("widget-prechat-handoff-phone.png", OUTPUT).pathname,
      fullPage: true,
    });
    const [row] = await s.deps.sql<{ visitor_email: string; handoff_state: string }[]>`
      SELECT visitor_email, handoff_state FROM conversations ORDER BY id DESC LIMIT 1`;
    assertEquals(row, { visitor_email: "pat@example.com", handoff_state: "handoff_pending" });
    assertOk(problems.length === 0, problems.join("\n"));
  } finally {
    await browser?.close();
    await s.stop();
    await fake.close();
  }
});
