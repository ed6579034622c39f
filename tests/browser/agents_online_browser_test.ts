/// <reference lib="dom" />
/**
 * "Is anyone there?" as a visitor and two agents see it, in headless
 * Chromium: with the real inbox open (and so on the workspace's presence
 * channel), the real widget's "Talk to a human" promises a teammate; the
 * answer stays yes while one of two agents' inboxes is open, and turns to no
 * once the last one is closed.
 */
import type { BrowserContext, Page } from "playwright-core";
import { assertEquals } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, standardSeed } from "../helpers/fixtures.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { http } from "../helpers/http.ts";
import { freePort } from "../helpers/net.ts";
import { freshIp, postStream } from "../widget/widget_client.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { waitUntil } from "../helpers/wait.ts";

Deno.test("agents with the inbox open are online for the widget", serverTestOptions, async (t) => {
  const fake = startFakeAi({ reply: "Happy to help." });
  // The widget's socket address comes from BASE_URL: the page is opened there.
  const port = freePort();
  const s = await startTestServer({
    seed: standardSeed(),
    env: {
      AI_BASE_URL: fake.baseUrl,
      PORT: String(port),
      BASE_URL: `http://127.0.0.1:${port}`,
      TRUSTED_PROXIES: "127.0.0.1",
    },
  });
  const browser = await launchChromium();
  const contexts: BrowserContext[] = [];
  const errors: string[] = [];
  const newPage = async () => {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    page.on("pageerror", (e) => errors.push(e.message));
    return page;
  };
  const signIn = async (page: Page, email: string) => {
    await signInAt(page, `${s.url}/inbox`, email);
    await page.locator(".conn[data-state=connected]", { hasText: "live" }).waitFor();
  };
  // A second visitor asks over HTTP, to read the answer after the inboxes close.
  const visitor = "v_online_http";
  const started = await postStream(s.url, "acme-helper", { visitor_id: visitor, message: "Hi" });
  const conversation = started.events[0]!.data.conversation_id as string;
  const agentsOnline = async () =>
    (await http(s.url, "POST", "/widget/acme-helper/handoff", {
      headers: freshIp(),
      body: { visitor_id: visitor, conversation_id: conversation },
    })).body.agents_online as boolean;
  try {
    const amy = await newPage();
    const ada = await newPage();
    const widget = await newPage();

    await t.step("nobody has the inbox open: nobody is online", async () => {
      assertEquals(await agentsOnline(), false);
    });

    await t.step("two agents open the inbox; the widget promises a teammate", async () => {
      await signIn(amy, EMAIL.acmeAgent);
      await signIn(ada, EMAIL.acmeOwner);
      await waitUntil(agentsOnline, "the inboxes to count as online");
      await widget.goto(`${s.url}/demo?key=acme-helper`);
      await widget.locator(".launcher").click();
      await widget.locator("textarea[aria-label=Message]").fill("Hello");
      await widget.locator("textarea[aria-label=Message]").press("Enter");
      await widget.locator(".msg.assistant .bubble", { hasText: "Happy to help." }).waitFor();
      await widget.locator("button[aria-label='Talk to a human']").click();
      await widget.getByText("asked a teammate to join").waitFor();
      assertEquals(await widget.getByText("No teammate is online").count(), 0);
    });

    await t.step("one inbox closed: the other agent is still online", async () => {
      await amy.context().close();
      // Give the server time to see the socket close; the answer must still be yes.
      await new Promise((r) => setTimeout(r, 500));
      assertEquals(await agentsOnline(), true);
    });

    await t.step("the last inbox closed: nobody is online", async () => {
      await ada.context().close();
      await waitUntil(async () => !(await agentsOnline()), "the last agent to go offline");
    });
    assertEquals(errors, []);
  } finally {
    for (const c of contexts) await c.close().catch(() => {});
    await browser.close();
    await s.stop();
    await fake.close();
  }
});
