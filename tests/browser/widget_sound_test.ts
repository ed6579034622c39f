/// <reference lib="dom" />
/**
 * The `sound` flag in headless Chromium, heard through an instrumented
 * AudioContext (each oscillator started is counted): with the chat closed an
 * agent's message chimes only once the visitor has interacted with the page;
 * an AI answer in the open chat on a visible tab is silent; and with the
 * flag off nothing ever plays. No audio file is fetched.
 */
import type { Page } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { http } from "../helpers/http.ts";
import { launchChromium } from "../helpers/browser.ts";
import { waitUntil } from "../helpers/wait.ts";

/** Counts the tones the page starts, through the real AudioContext. */
const INSTRUMENT = `(() => {
  const Real = window.AudioContext;
  window.__tones = 0;
  window.AudioContext = class extends Real {
    createOscillator() {
      const osc = super.createOscillator();
      const start = osc.start.bind(osc);
      osc.start = (...args) => { window.__tones++; return start(...args); };
      return osc;
    }
  };
})();`;

Deno.test("widget sound flag", serverTestOptions, async (t) => {
  const fake = startFakeAi({ reply: "Happy to help." });
  const s = await startTestServer({ seed: standardSeed(), env: { AI_BASE_URL: fake.baseUrl } });
  const token = T.acme.agent.agent;
  const browser = await launchChromium();
  const sound = (on: boolean) =>
    s.deps.sql`
      UPDATE chatbots SET branding = branding || ${s.deps.sql.json({ sound: on })}
       WHERE public_key = 'acme-helper'`;
  const errors: string[] = [];
  const audioFiles: string[] = [];
  /** A fresh visitor on the demo page, counted tones, first heartbeat done. */
  const visit = async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.on("pageerror", (e) => errors.push(e.message));
    page.on(
      "request",
      (r) => /\.(mp3|ogg|wav|m4a)(\?|$)/.test(r.url()) && audioFiles.push(r.url()),
    );
    await page.addInitScript(INSTRUMENT);
    const beat = page.waitForResponse("**/widget/acme-helper/heartbeat");
    await page.goto(`${s.url}/demo?key=acme-helper`);
    await beat;
    const visitor = await page.evaluate(() => localStorage.getItem("parley:acme-helper:visitor"));
    assertOk(visitor, "the widget's visitor id");
    return { page, visitor: visitor!, close: () => context.close() };
  };
  const tones = (page: Page) =>
    page.evaluate(() => (window as unknown as { __tones: number }).__tones);
  /** The next heartbeat now (the widget beats when the tab becomes visible). */
  const beatNow = (page: Page) =>
    page.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
  const badge = (page: Page) => page.locator(".launcher .badge");
  let first: { page: Page; close(): Promise<void>; conversation: string } | null = null;
  try {
    await t.step("on: no sound before the visitor has interacted with the page", async () => {
      await sound(true);
      const v = await visit();
      const r = await http(s.url, "POST", `/api/agent/visitors/${v.visitor}/invite`, {
        token,
        body: { message: "Hi! Can I help?" },
      });
      assertEquals(r.status, 201, r.text);
      await beatNow(v.page);
      await waitUntil(async () => (await badge(v.page).textContent()) === "1", "the unread badge");
      assertEquals(await tones(v.page), 0);
      first = { ...v, conversation: r.body.conversation_id };
    });

    await t.step("after an interaction, the next agent message chimes", async () => {
      const v = first!;
      {
        await v.page.mouse.click(5, 5); // somewhere on the host page: the chat stays closed
        const reply = await http(
          s.url,
          "POST",
          `/api/agent/conversations/${v.conversation}/reply`,
          { token, body: { body: "Still there?" } },
        );
        assertEquals(reply.status, 200, reply.text);
        await beatNow(v.page);
        await waitUntil(async () => (await tones(v.page)) > 0, "a tone");
        assertEquals(await tones(v.page), 2, "one chime: two notes");
      }
      await v.close();
    });

    await t.step("on: the AI's answer in the open chat on a visible tab is silent", async () => {
      const v = await visit();
      await v.page.locator(".launcher").click();
      await v.page.locator("textarea[aria-label=Message]").fill("Hello");
      await v.page.locator("textarea[aria-label=Message]").press("Enter");
      await v.page.locator(".msg.assistant .bubble", { hasText: "Happy to help." }).waitFor();
      assertEquals(await tones(v.page), 0);
      await v.close();
    });

    await t.step("off: silent even after interaction", async () => {
      await sound(false);
      const v = await visit();
      await v.page.mouse.click(5, 5);
      const r = await http(s.url, "POST", `/api/agent/visitors/${v.visitor}/invite`, {
        token,
        body: { message: "Hi from a quiet bot" },
      });
      assertEquals(r.status, 201, r.text);
      await beatNow(v.page);
      await waitUntil(async () => (await badge(v.page).textContent()) === "1", "the unread badge");
      await new Promise((r) => setTimeout(r, 300));
      assertEquals(await tones(v.page), 0);
      await v.close();
    });
    assertEquals(errors, []);
    assertEquals(audioFiles, [], "no audio file is fetched");
  } finally {
    await browser.close();
    await s.stop();
    await fake.close();
  }
});
