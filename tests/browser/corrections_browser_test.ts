/// <reference lib="dom" />
/**
 * A correction made in Chromium answers the next visitor: a visitor's
 * question gets a wrong AI reply; an agent opens the conversation in the web
 * inbox, uses "Correct this answer" (question prefilled with the visitor's
 * words), writes the right answer and saves; a second visitor asks a reworded
 * question in the widget and is answered from the correction (the fake
 * provider answers with what the prompt's knowledge says). The owner sees the
 * correction listed on the bot's knowledge page, as text, and try-it labels
 * its passage; an owner corrects another reply from the dashboard's
 * transcript with an edited question. Screenshots go to tests/output/.
 */
import type { Page } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, standardSeed } from "../helpers/fixtures.ts";
import { type ChatRequestRecord, startFakeAi } from "../helpers/fake_ai.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";

const OUTPUT = new URL("../output/", import.meta.url);
const WRONG = "Express shipping costs 15 euros.";
const RIGHT = "Express shipping costs 25 euros <b>since March</b>.";
const SUNDAYS = "Parcels go out on Sundays too, from the Tallinn warehouse.";

/** The provider "reads" its prompt: the corrected answer when the knowledge carries it. */
function reply(req: ChatRequestRecord): string {
  const prompt = req.messages.map((m) => m.content).join("\n");
  return prompt.includes(SUNDAYS) ? SUNDAYS : prompt.includes(RIGHT) ? RIGHT : WRONG;
}

Deno.test(
  "a correction made in Chromium answers the next visitor",
  serverTestOptions,
  async (t) => {
    await Deno.mkdir(OUTPUT, { recursive: true });
    const fake = startFakeAi({ reply });
    const s = await startTestServer({
      seed: standardSeed(),
      env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl, WORKER_CONCURRENCY: "0" },
    });
    const browser = await launchChromium();
    const problems: string[] = [];
    const newPage = async (): Promise<Page> => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
      page.on("dialog", (d) => void d.accept());
      return page;
    };
    try {
      let conversation = "";
      await t.step("a visitor gets a wrong answer", async () => {
        const r = await postStream(s.url, "acme-helper", {
          visitor_id: "v_browser_corr",
          message: "How much does express shipping cost?",
        });
        assertEquals(r.status, 200);
        conversation = r.events.find((e) => e.event === "meta")!.data.conversation_id;
        const text = r.events.filter((e) => e.event === "delta").map((e) => e.data.delta).join("");
        assertEquals(text, WRONG);
      });

      await t.step("an agent corrects the answer in the inbox", async () => {
        const agent = await newPage();
        await signInAt(agent, `${s.url}/inbox?conversation=${conversation}`, EMAIL.acmeAgent);
        await agent.locator("body[data-ready]").waitFor();
        const aiMessage = agent.locator(".msg-assistant", { hasText: WRONG });
        await aiMessage.waitFor();
        // Only AI replies offer the action.
        assertEquals(await agent.locator(".msg-visitor button.correct-answer").count(), 0);
        await aiMessage.locator("button.correct-answer").click();
        const form = aiMessage.locator("form.correction-form");
        await form.waitFor();
        assertEquals(
          await form.locator("textarea[name=question]").inputValue(),
          "How much does express shipping cost?",
        );
        // Cancel closes it; opening again starts afresh.
        await form.locator("button.cancel").click();
        await form.waitFor({ state: "detached" });
        await aiMessage.locator("button.correct-answer").click();
        await form.locator("textarea[name=answer]").fill(RIGHT);
        // A live update redraws the thread (the visitor writes again): the draft stays.
        const more = await postStream(s.url, "acme-helper", {
          visitor_id: "v_browser_corr",
          conversation_id: conversation,
          message: "Hello?",
        });
        assertEquals(more.status, 200);
        await agent.locator(".msg-visitor .msg-body", { hasText: "Hello?" }).waitFor();
        assertEquals(await form.locator("textarea[name=answer]").inputValue(), RIGHT);
        await agent.screenshot({ path: new URL("corrections-inbox-form.png", OUTPUT).pathname });
        await form.locator("button[type=submit]").click();
        await form.waitFor({ state: "detached" });
        await agent.getByText("Correction saved").waitFor();
        await agent.context().close();
      });

      await t.step("the next visitor, asking in other words, is answered from it", async () => {
        const visitor = await newPage();
        await visitor.goto(`${s.url}/demo?key=acme-helper`);
        await visitor.locator(".launcher").click();
        const input = visitor.locator("textarea[aria-label=Message]");
        await input.fill("What is the price for an express delivery?");
        await input.press("Enter");
        // The reply is shown as text: the markup in the answer stays visible characters.
        await visitor.locator(".msg.assistant .bubble", { hasText: "<b>since March</b>" })
          .waitFor();
        await visitor.screenshot({
          path: new URL("corrections-next-visitor.png", OUTPUT).pathname,
        });
        await visitor.context().close();
      });

      await t.step("the owner sees it listed, as text, and try-it labels it", async () => {
        const owner = await newPage();
        await signInAt(owner, `${s.url}/dashboard`, EMAIL.acmeOwner);
        await owner.locator(".shell, nav").first().waitFor();
        await owner.goto(`${s.url}/dashboard#/bots/acme-helper/knowledge`);
        const item = owner.locator("li.correction", { hasText: "25 euros" });
        await item.waitFor();
        assertOk((await item.innerText()).includes("<b>since March</b>"));
        assertEquals(await item.locator("b").count(), 0);
        assertEquals(
          await item.locator("a", { hasText: "conversation" }).getAttribute("href"),
          `#/conversations/${conversation}`,
        );
        await owner.locator(".try-it textarea").fill("How much does express shipping cost?");
        await owner.locator(".try-it button[type=submit]").click();
        await owner.locator(".passage .passage-correction", { hasText: "Correction" }).first()
          .waitFor();
        await owner.screenshot({
          path: new URL("corrections-dashboard.png", OUTPUT).pathname,
          fullPage: true,
        });
        await owner.context().close();
      });
      await t.step("an owner corrects a reply from the dashboard's transcript", async () => {
        const r = await postStream(s.url, "acme-helper", {
          visitor_id: "v_browser_corr_2",
          message: "Are parcels sent on weekends?",
        });
        const other = r.events.find((e) => e.event === "meta")!.data.conversation_id;
        const owner = await newPage();
        await signInAt(owner, `${s.url}/dashboard`, EMAIL.acmeOwner);
        await owner.locator("body[data-screen]").waitFor();
        await owner.goto(`${s.url}/dashboard#/conversations/${other}`);
        const entry = owner.locator(".entry.message[data-role=assistant]").last();
        await entry.waitFor();
        assertEquals(
          await owner.locator(".entry.message[data-role=visitor] button.correct-answer").count(),
          0,
        );
        await entry.locator("button.correct-answer").click();
        const form = entry.locator("form.correction-form");
        assertEquals(
          await form.locator("textarea[name=question]").inputValue(),
          "Are parcels sent on weekends?",
        );
        await form.locator("textarea[name=question]").fill("Do you ship parcels on Sundays?");
        await form.locator("textarea[name=answer]").fill(SUNDAYS);
        await form.locator("button[type=submit]").click();
        await form.waitFor({ state: "detached" });
        await owner.screenshot({
          path: new URL("corrections-transcript.png", OUTPUT).pathname,
          fullPage: true,
        });
        await owner.context().close();
        const next = await postStream(s.url, "acme-helper", {
          visitor_id: "v_browser_corr_3",
          message: "Do you ship on Sundays?",
        });
        const text = next.events.filter((e) => e.event === "delta").map((e) => e.data.delta)
          .join("");
        assertEquals(text, SUNDAYS);
      });
      assertEquals(problems, []);
    } finally {
      await browser.close();
      await s.stop();
      await fake.close();
    }
  },
);
