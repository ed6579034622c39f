/// <reference lib="dom" />
/**
 * One vocabulary in headless Chromium (docs/vocabulary.md): a visitor who
 * asked for a human reads "Waiting for a human" in the widget, the inbox's
 * tab and row, the dashboard history's State column and filter, and the
 * transcript, never the wire's `bot` or "With the AI". Desktop and 390 px
 * screenshots under tests/output/.
 */
import type { Browser, Page } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL } from "../helpers/fixtures.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { dashboardSeed } from "../dashboard/dashboard_seed.ts";

const OUTPUT = new URL("../output/", import.meta.url);
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };

Deno.test("one vocabulary across widget, inbox and dashboard", serverTestOptions, async (t) => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const fake = startFakeAi({ reply: "Happy to help." });
  const s = await startTestServer({
    seed: dashboardSeed(),
    env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
  });
  let browser: Browser | null = null;
  const problems: string[] = [];
  const open = async (viewport = DESKTOP): Promise<Page> => {
    const page = await (await browser!.newContext({ viewport })).newPage();
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    return page;
  };
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: new URL(`vocabulary-${name}.png`, OUTPUT).pathname, fullPage: true });
  try {
    await postStream(s.url, "acme-helper", { visitor_id: "v_quiet", message: "Just looking" });
    browser = await launchChromium();
    let waiting = "";

    await t.step("the visitor asks for a human; the widget says the state", async () => {
      const visitor = await open(PHONE);
      await visitor.goto(`${s.url}/demo?key=acme-helper`);
      await visitor.locator(".launcher").click();
      const input = visitor.locator("textarea[aria-label=Message]");
      await input.fill("I want a person");
      await input.press("Enter");
      await visitor.locator(".msg.assistant .bubble", { hasText: "Happy to help." }).waitFor();
      await visitor.getByRole("button", { name: "Talk to a human" }).click();
      await visitor.getByText("Waiting for a human: no teammate is online right now").waitFor();
      await shot(visitor, "widget-phone");
    });

    await t.step("the inbox: the tab and the row say Waiting for a human", async () => {
      const inbox = await open();
      await signInAt(inbox, `${s.url}/inbox`, EMAIL.acmeAgent);
      await inbox.locator("body[data-ready]").waitFor();
      const tabs = inbox.getByRole("tablist", { name: "Sections" });
      const labels = await tabs.locator(".section-label").allInnerTexts();
      assertEquals(labels, [
        "Waiting for a human",
        "With you",
        "With a teammate",
        "With a human",
        "With the AI",
        "Resolved",
        "All open",
      ]);
      await tabs.getByRole("tab", { name: /Waiting for a human/ }).click();
      const row = inbox.locator("li.row").first();
      await row.locator(".badge", { hasText: "Waiting for a human" }).waitFor();
      waiting = (await row.getAttribute("data-id"))!;
      await shot(inbox, "inbox-desktop");
    });

    await t.step("the dashboard history: State column, filter and transcript", async () => {
      const dash = await open();
      await signInAt(dash, `${s.url}/dashboard`, EMAIL.acmeOwner);
      await dash.locator("body[data-screen]").waitFor();
      await dash.goto(`${s.url}/dashboard#/conversations`);
      await dash.locator("tr[data-conversation]").nth(1).waitFor();
      const pill = dash.locator(`tr[data-conversation="${waiting}"] .pill`);
      assertEquals(await pill.innerText(), "Waiting for a human");
      const search = dash.getByRole("search", { name: "Filter conversations" });
      const options = await search.locator("select[name=state] option").allInnerTexts();
      assertEquals(options, [
        "Any state",
        "Waiting for a human",
        "With a human",
        "With the AI",
        "Resolved",
      ]);
      await search.locator("select[name=state]").selectOption("waiting");
      await search.getByRole("button", { name: "Search" }).click();
      await dash.getByText("1 conversation shown.").waitFor();
      assertEquals(
        await dash.locator("tr[data-conversation]").first().getAttribute("data-conversation"),
        waiting,
      );
      await shot(dash, "history-waiting-desktop");
      await dash.locator(`tr[data-conversation="${waiting}"] a`).click();
      const fact = dash.locator(".transcript-facts dt", { hasText: "State" });
      await fact.waitFor();
      const text = await dash.locator(".transcript-facts").innerText();
      assertOk(text.includes("Waiting for a human"), text);
      assertOk(!/\bStatus\b|\bbot\b/.test(text), text);
    });
    assertEquals(problems, []);
  } finally {
    await browser?.close();
    await s.stop();
    await fake.close();
  }
});
