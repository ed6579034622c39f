/// <reference lib="dom" />
/**
 * The copilot flags in the real inbox (headless Chromium): with `copilot`
 * off the Suggest button is not offered; on, it is, and nothing is asked by
 * itself; with `copilot_autostart` the inbox asks for a suggestion when the
 * open conversation has an unanswered visitor message, once per message.
 */
import type { Page } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, standardSeed, T } from "../helpers/fixtures.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { http } from "../helpers/http.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { waitUntil } from "../helpers/wait.ts";

Deno.test("inbox copilot flags", serverTestOptions, async (t) => {
  const fake = startFakeAi({ reply: "Parcels ship in 2 days." });
  const s = await startTestServer({
    seed: standardSeed(),
    env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
  });
  const flags = (branding: Record<string, boolean>) =>
    s.deps.sql`
      UPDATE chatbots SET branding = branding || ${s.deps.sql.json(branding)}
       WHERE public_key = 'acme-helper'`;
  // A conversation a human owns, whose last message is the visitor's: unanswered.
  const visitor = "v_copilot";
  const first = await postStream(s.url, "acme-helper", { visitor_id: visitor, message: "Hi" });
  const id = first.events[0]!.data.conversation_id as string;
  const token = T.acme.agent.agent;
  assertEquals(
    (await http(s.url, "POST", `/api/agent/conversations/${id}/takeover`, { token })).status,
    200,
  );
  const ask = (message: string) =>
    postStream(s.url, "acme-helper", { visitor_id: visitor, conversation_id: id, message });
  await ask("Where is my parcel?");

  const browser = await launchChromium();
  const errors: string[] = [];
  let suggests = 0;
  const page: Page = await browser.newPage();
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("request", (r) => {
    if (r.url().includes("suggest") && !r.url().includes("suggestionOutcome")) suggests++;
  });
  const composer = page.locator("textarea.composer-input");
  const suggestButton = page.locator("button.suggest");
  const openConversation = async () => {
    await page.goto(`${s.url}/inbox?conversation=${id}`);
    await page.locator(".msg-body", { hasText: "Where is my parcel?" }).first().waitFor();
  };
  try {
    await signInAt(page, `${s.url}/inbox`, EMAIL.acmeAgent);
    await page.locator("body[data-ready]").waitFor();

    await t.step("copilot off: no Suggest button", async () => {
      await flags({ copilot: false, copilot_autostart: true });
      await openConversation();
      await suggestButton.waitFor({ state: "hidden" });
      await new Promise((r) => setTimeout(r, 300));
      assertEquals(suggests, 0, "autostart needs the copilot on");
    });

    await t.step("copilot on, autostart off: offered, never asked by itself", async () => {
      await flags({ copilot: true, copilot_autostart: false });
      await openConversation();
      await suggestButton.waitFor({ state: "visible" });
      await new Promise((r) => setTimeout(r, 500));
      assertEquals([suggests, await composer.inputValue()], [0, ""]);
      await suggestButton.click();
      await waitUntil(
        async () => (await composer.inputValue()) === "Parcels ship in 2 days.",
        "the suggestion",
      );
      assertEquals(suggests, 1);
      await composer.fill("");
    });

    await t.step("autostart: asked once per unanswered visitor message", async () => {
      await flags({ copilot_autostart: true });
      suggests = 0;
      await openConversation();
      await waitUntil(
        async () => (await composer.inputValue()) === "Parcels ship in 2 days.",
        "the suggestion asked by itself",
      );
      assertEquals(suggests, 1);
      // Live reloads of the same conversation do not ask again.
      await http(s.url, "POST", `/api/agent/conversations/${id}/watch`, {
        token,
        body: { watching: true },
      });
      await new Promise((r) => setTimeout(r, 800));
      assertEquals(suggests, 1);
      // A new visitor message is a new question: one more suggestion.
      await composer.fill("");
      await ask("Any news?");
      await waitUntil(() => suggests === 2, "a suggestion for the new message");
    });
    assertOk(errors.length === 0, errors.join("\n"));
  } finally {
    await browser.close();
    await s.stop();
    await fake.close();
  }
});
