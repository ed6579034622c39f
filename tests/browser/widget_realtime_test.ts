/// <reference lib="dom" />
/**
 * The widget on its socket, in headless Chromium: with the heartbeat cut off
 * once the widget has its channel, an agent's reply sent through the agent
 * API, the agent's typing and the conversation's state still appear at once.
 * With an agent on the presence channel, "talk to a human" promises a
 * teammate; without, the widget says nobody is online and takes an e-mail.
 */
import type { Page } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { http } from "../helpers/http.ts";
import { freePort } from "../helpers/net.ts";
import { pusherClient, subscribe } from "../realtime/pusher_helpers.ts";
import { launchChromium } from "../helpers/browser.ts";

async function waitUntil(check: () => Promise<boolean>, what: string, ms = 10_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The widget's stored conversation id. */
function conversationOf(page: Page): Promise<string | null> {
  return page.evaluate(() => localStorage.getItem("parley:acme-helper:conversation"));
}

Deno.test("widget follows its conversation over the socket", serverTestOptions, async (t) => {
  const fake = startFakeAi({ reply: "Happy to help." });
  // The page is opened at BASE_URL, the address the widget's config names for the socket.
  const port = freePort();
  const s = await startTestServer({
    seed: standardSeed(),
    env: { AI_BASE_URL: fake.baseUrl, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}` },
  });
  const token = T.acme.agent.agent;
  const me = (await http(s.url, "GET", "/api/agent/me", { token })).body;
  const agent = pusherClient(s, { token });
  const browser = await launchChromium();
  const errors: string[] = [];
  const sockets: string[] = [];
  let heartbeats = 0;
  let conversationId = "";
  let agentChannel: Awaited<ReturnType<typeof subscribe>> | null = null;
  try {
    const page = await browser.newPage();
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    page.on("websocket", (ws) => sockets.push(ws.url()));
    await page.route("**/widget/acme-helper/heartbeat", (route) => {
      heartbeats++;
      return route.continue();
    });

    await t.step("a first message; the widget joins its conversation's channel", async () => {
      await page.goto(`${s.url}/demo?key=acme-helper`);
      await page.locator(".launcher").click();
      await page.locator("textarea[aria-label=Message]").fill("Hello");
      await page.locator("textarea[aria-label=Message]").press("Enter");
      await page.locator(".msg.assistant .bubble", { hasText: "Happy to help." }).waitFor();
      conversationId = (await conversationOf(page)) ?? "";
      assertOk(conversationId.length === 36);
      await waitUntil(() => Promise.resolve(sockets.length > 0), "the widget's socket");
      assertOk(
        sockets[0]!.startsWith(`ws://127.0.0.1:${s.realtimePort}/app/parley?protocol=7`),
        sockets[0],
      );
    });

    await t.step("with an agent online, 'talk to a human' promises a teammate", async () => {
      const p = await subscribe(agent, `presence-workspace.${me.company.id}`);
      assertOk(p.ok);
      await page.locator("button[aria-label='Talk to a human']").click();
      await page.getByText("asked a teammate to join").waitFor();
    });

    await t.step("heartbeat cut off: the agent's reply still appears at once", async () => {
      // From now on no heartbeat reaches the server: only the socket can deliver.
      await page.unroute("**/widget/acme-helper/heartbeat");
      await page.route("**/widget/acme-helper/heartbeat", (route) => {
        heartbeats++;
        return route.abort();
      });
      const started = performance.now();
      const r = await http(s.url, "POST", `/api/agent/conversations/${conversationId}/reply`, {
        token,
        body: { body: "Hi, Amy here. How can I help?" },
      });
      assertEquals(r.status, 200);
      await page.locator(".msg.agent .bubble", { hasText: "Hi, Amy here." }).waitFor({
        timeout: 2000,
      });
      const ms = performance.now() - started;
      console.log(`agent reply shown in the widget ${ms.toFixed(0)} ms after the API call`);
      assertOk(ms < 2000, `${ms} ms`);
      await page.getByText("A teammate joined the chat.").waitFor({ timeout: 2000 });
      assertEquals(await page.locator(".msg.agent").count(), 1);
    });

    await t.step("the agent's typing shows, and the state follows a resolve", async () => {
      const cs = agentChannel = await subscribe(agent, `private-conversation.${conversationId}`);
      assertOk(cs.ok);
      cs.channel.trigger("client-typing", { typing: true, name: "Amy" });
      await page.getByText("Amy is typing…").waitFor({ timeout: 2000 });
      const r = await http(s.url, "POST", `/api/agent/conversations/${conversationId}/resolve`, {
        token,
      });
      assertEquals(r.status, 200);
      await page.getByText("This conversation was closed.").waitFor({ timeout: 2000 });
    });

    await t.step("the visitor's typing reaches the agent", async () => {
      const cs = agentChannel!;
      assertOk(cs.ok);
      const heard = new Promise((resolve) => cs.channel.bind("client-typing", resolve));
      await page.locator("textarea[aria-label=Message]").pressSequentially("Thanks", { delay: 10 });
      assertEquals(await heard, { role: "visitor", typing: true });
    });

    await t.step("nobody online: the widget says so and takes an e-mail", async () => {
      agent.unsubscribe(`presence-workspace.${me.company.id}`);
      await page.unroute("**/widget/acme-helper/heartbeat");
      await page.locator("button[aria-label='Start a new chat']").click();
      // The log starts over once the old conversation is closed on the server.
      await waitUntil(async () => (await page.locator(".msg.visitor").count()) === 0, "a new chat");
      await page.locator("textarea[aria-label=Message]").fill("Hello again");
      await page.locator("textarea[aria-label=Message]").press("Enter");
      let second = "";
      await waitUntil(async () => {
        second = (await conversationOf(page)) ?? "";
        return second !== "" && second !== conversationId;
      }, "the new conversation");
      await page.locator(".msg.assistant .bubble", { hasText: "Happy to help." }).waitFor();
      await page.locator("button[aria-label='Talk to a human']").click();
      await page.getByText("No teammate is online right now").waitFor();
      assertEquals(await page.getByText("asked a teammate to join").count(), 0);
      await page.locator("form.email input").fill("visitor@example.com");
      await page.locator("form.email button").click();
      await page.getByText("We'll reply to visitor@example.com").waitFor();
      const view = await http(s.url, "GET", `/api/agent/conversations/${second}`, { token });
      assertEquals(view.body.active.email, "visitor@example.com");
      // The AI keeps helping meanwhile.
      await page.locator("textarea[aria-label=Message]").fill("Still there?");
      await page.locator("textarea[aria-label=Message]").press("Enter");
      await waitUntil(
        async () => (await page.locator(".msg.assistant .bubble").count()) >= 3,
        "the AI's answer",
      );
    });
    assertEquals(errors.filter((e) => !/heartbeat|ERR_FAILED/.test(e)), []);
    assertOk(heartbeats > 0);
  } finally {
    agent.disconnect();
    await browser.close();
    await s.stop();
    await fake.close();
  }
});
