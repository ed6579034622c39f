/// <reference lib="dom" />
/**
 * The widget in a real browser (Debian's headless Chromium via
 * playwright-core): a page with the snippet, the launcher and dialog, a reply
 * streaming in, history after a reload, markup shown as text, keyboard use,
 * human handoff, agent replies by heartbeat, rating, new chat, a second theme
 * with quick replies, the pre-chat form, the proactive message, and a phone
 * screen. Screenshots go to tests/output/. Without Chromium this test fails.
 */
import type { BrowserContext, Page } from "playwright-core";
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed } from "../helpers/fixtures.ts";
import { type ChatRequestRecord, startFakeAi } from "../helpers/fake_ai.ts";
import { http } from "../helpers/http.ts";
import { freePort } from "../helpers/net.ts";
import { agentSays, resolve, signJwt } from "../widget/widget_client.ts";
import { launchChromium } from "../helpers/browser.ts";

const OUTPUT = new URL("../output/", import.meta.url);
const HOURS_REPLY =
  "Our desk is open Monday to Friday, 9:00 to 17:00 CET. Details: https://example.com/hours.";
const XSS = `<img src=x onerror="window.__pwned=1">`;

function browserSeed() {
  const seed = standardSeed();
  (seed.workspaces[0]!.chatbots as unknown[]).push(
    {
      name: "Acme Midnight",
      public_key: "acme-midnight",
      welcome_message: "Midnight desk here.",
      branding: {
        theme: "midnight",
        position: "left",
        primary_color: "#22c55e",
        launcher_text: "Ask us",
        title: "Night Support",
        quick_replies: ["Do you ship abroad?", "Returns"],
      },
    },
    {
      name: "Acme Forms",
      public_key: "acme-forms",
      branding: {
        title: "Forms Desk",
        prechat: { enabled: true, fields: [{ name: "name", required: true }, "email"] },
        proactive: { enabled: true, message: "Need a hand?", delay: 0, frequency: "session" },
      },
    },
  );
  const proactive = (key: string, p: Record<string, unknown>) => ({
    name: key,
    public_key: key,
    branding: {
      proactive: { enabled: true, message: `Hello from ${key}`, frequency: "always", ...p },
    },
  });
  (seed.workspaces[1]!.chatbots as unknown[]).push(
    proactive("pro-scroll", { delay: 0, scroll: 60 }),
    proactive("pro-exit", { delay: 3600, exit_intent: true }),
    proactive("pro-url", { delay: 0, url_contains: "pricing" }),
  );
  return seed;
}

function lastUserText(req: ChatRequestRecord): string {
  return [...req.messages].reverse().find((m) => m.role === "user")?.content ?? "";
}

/** The widget's stored ids for `key` in this page's origin. */
function stored(page: Page, key: string) {
  return page.evaluate((k) => ({
    visitor: localStorage.getItem(`parley:${k}:visitor`),
    conversation: localStorage.getItem(`parley:${k}:conversation`),
  }), key);
}

/** Which element has focus inside the widget's shadow root (tag and class). */
function focused(page: Page) {
  return page.evaluate(() => {
    const el = document.querySelector("#parley-widget")?.shadowRoot?.activeElement;
    return el ? `${el.tagName.toLowerCase()}.${el.className}` : null;
  });
}

/** Makes the widget send its heartbeat now instead of in 15 s. */
function beatNow(page: Page) {
  return page.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
}

/** Waits until no reply is streaming, so the composer accepts the next message. */
function idle(page: Page) {
  return waitUntil(async () =>
    (await page.locator(".msg[aria-busy]").count()) === 0 &&
    await page.locator("button.send").isEnabled(), "the reply to finish");
}

async function waitUntil(check: () => Promise<boolean>, what: string, ms = 10_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

Deno.test("widget works end to end in headless Chromium", serverTestOptions, async (t) => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const fake = startFakeAi({ chunkDelayMs: 40, reply: HOURS_REPLY });
  // BASE_URL names the address the pages use: the widget's socket goes there.
  const port = freePort();
  const s = await startTestServer({
    seed: browserSeed(),
    env: { AI_BASE_URL: fake.baseUrl, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}` },
  });
  const browser = await launchChromium();
  const pageErrors: string[] = [];
  let context: BrowserContext | null = null;
  try {
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.on("pageerror", (e) => pageErrors.push(e.message));
    page.on("console", (m) => {
      if (m.type() === "error" && /Content.Security.Policy/i.test(m.text())) {
        pageErrors.push(m.text());
      }
    });
    const panel = page.locator(".panel");
    const launcher = page.locator(".launcher");
    const input = page.locator("textarea[aria-label=Message]");
    let firstConversation = "";

    await t.step("the snippet mounts a launcher that opens an accessible chat dialog", async () => {
      await page.goto(`${s.url}/demo?key=acme-helper`);
      await launcher.waitFor();
      assertEquals(await launcher.getAttribute("aria-expanded"), "false");
      assertOk(await panel.isHidden());
      await launcher.click();
      await panel.waitFor();
      assertEquals(await launcher.getAttribute("aria-expanded"), "true");
      assertEquals(await panel.getAttribute("role"), "dialog");
      assertEquals(await panel.getAttribute("aria-label"), "Acme Support chat");
      const log = page.locator("[role=log]");
      assertEquals(await log.getAttribute("aria-live"), "polite");
      await page.getByText("Hello from Acme!").waitFor();
      assertEquals(await focused(page), "textarea.");
      assertEquals(await page.locator(".root").getAttribute("data-theme"), "ocean");
      const bg = await launcher.evaluate((el) => getComputedStyle(el).backgroundColor);
      assertEquals(bg, "rgb(255, 102, 0)", "branding applied under the demo's strict CSP");
    });

    await t.step(
      "the reply streams in piece by piece and its URL becomes a safe link",
      async () => {
        await input.fill("When are you open?");
        await input.press("Enter");
        const bubble = page.locator(".msg.assistant .bubble").last();
        const seen = new Set<string>();
        await waitUntil(async () => {
          seen.add(await bubble.innerText());
          return (await page.locator(".msg.assistant[aria-busy]").count()) === 0 &&
            (await bubble.innerText()).includes("hours");
        }, "the streamed reply");
        const partial = [...seen].filter((x) => x.length > 3 && !x.includes("example.com/hours"));
        assertOk(partial.length >= 2, `saw the reply grow (${[...seen].length} states)`);
        assertEquals(await bubble.innerText(), HOURS_REPLY);
        const link = bubble.locator("a");
        assertEquals(await link.getAttribute("href"), "https://example.com/hours");
        assertEquals(await link.getAttribute("rel"), "noopener noreferrer");
        assertEquals(await link.getAttribute("target"), "_blank");
        assertEquals(await link.innerText(), "https://example.com/hours");
        assertEquals(lastUserText(fake.requests.at(-1)!), "When are you open?");
        assertEquals(await page.locator(".msg.visitor .bubble").innerText(), "When are you open?");
        firstConversation = (await stored(page, "acme-helper")).conversation ?? "";
        assertMatch(firstConversation, /^[0-9a-f-]{36}$/);
        assertMatch((await stored(page, "acme-helper")).visitor ?? "", /^v_[0-9a-f]{24}$/);
        await page.screenshot({ path: new URL("widget-ocean.png", OUTPUT).pathname });
      },
    );

    await t.step("after a reload the chat reopens with its history, once", async () => {
      await page.reload();
      await panel.waitFor();
      await page.locator(".msg.assistant .bubble", { hasText: "Monday to Friday" }).waitFor();
      assertEquals(await page.locator(".msg.visitor").count(), 1);
      assertEquals(await page.locator(".msg.visitor .bubble").innerText(), "When are you open?");
      assertEquals((await stored(page, "acme-helper")).conversation, firstConversation);
    });

    await t.step(
      "a message whose answer was lost to a 503 is retried with its client_id, stored once",
      async () => {
        // The first attempt reaches the server, which stores it and answers, but
        // the page sees a 503 (a partition between the two): the widget retries.
        const keys: string[] = [];
        let attempts = 0;
        await page.route("**/widget/acme-helper/stream", async (route) => {
          keys.push(JSON.parse(route.request().postData() ?? "{}").client_id);
          if (attempts++ > 0) return await route.continue();
          await (await route.fetch()).text();
          await route.fulfill({
            status: 503,
            headers: { "retry-after": "1", "content-type": "application/json" },
            body: JSON.stringify({ message: "The service is temporarily unavailable." }),
          });
        });
        const question = "Is the retry stored once?";
        const calls = () => fake.requests.filter((r) => lastUserText(r) === question).length;
        await input.fill(question);
        await input.press("Enter");
        await waitUntil(() => Promise.resolve(attempts === 2), "the retry");
        await idle(page);
        await page.unroute("**/widget/acme-helper/stream");
        assertEquals(keys.length, 2);
        assertMatch(keys[0]!, /^[0-9a-f]{32}$/);
        assertEquals(keys[1], keys[0], "the retry reuses the message's client_id");
        assertEquals(await page.locator(".msg.visitor", { hasText: question }).count(), 1);
        assertEquals(await page.locator(".msg.assistant .bubble").last().innerText(), HOURS_REPLY);
        const [row] = await s.deps.sql<{ n: number }[]>`
          SELECT count(*)::int AS n FROM messages WHERE role = 'visitor' AND content = ${question}`;
        assertEquals(row!.n, 1);
        assertEquals(calls(), 1);
      },
    );

    await t.step("markup in messages is shown as text and never runs", async () => {
      fake.reply = (req) => `You wrote: ${lastUserText(req)}`;
      await input.fill(XSS);
      await input.press("Enter");
      const echo = page.locator(".msg.assistant .bubble", { hasText: "You wrote:" });
      await echo.waitFor();
      await waitUntil(async () => (await echo.innerText()).endsWith(">"), "the echoed reply");
      await idle(page);
      const check = async () => {
        assertEquals(await page.locator(".msg.visitor .bubble").last().innerText(), XSS);
        assertEquals(await echo.innerText(), `You wrote: ${XSS}`);
        assertEquals(await page.locator(".bubble img").count(), 0);
        assertEquals(await page.evaluate(() => "__pwned" in globalThis), false);
      };
      await check();
      await page.reload();
      await echo.waitFor();
      await check();
    });

    await t.step("only http(s) links become anchors, Markdown labels included", async () => {
      fake.reply = "Try [the docs](https://example.com/docs), not [this](javascript:alert(1)).";
      await input.fill("Links please");
      await input.press("Enter");
      const bubble = page.locator(".msg.assistant .bubble", { hasText: "Try the docs" });
      await bubble.waitFor();
      await waitUntil(async () => (await bubble.innerText()).endsWith("."), "the reply");
      await idle(page);
      assertEquals(await bubble.locator("a").count(), 1);
      assertEquals(await bubble.locator("a").getAttribute("href"), "https://example.com/docs");
      assertEquals(await bubble.locator("a").innerText(), "the docs");
      assertOk((await bubble.innerText()).includes("[this](javascript:alert(1))"));
    });

    await t.step(
      "a provider failure mid-reply shows a visitor's sentence, keeps the message",
      async () => {
        fake.mode = "fail_mid_stream";
        fake.reply = "This answer will be cut off somewhere in the middle of the sentence.";
        try {
          await input.fill("Tell me more");
          await input.press("Enter");
          const failed = page.locator(".msg.assistant.error .bubble");
          await failed.waitFor();
          assertOk((await failed.innerText()).startsWith("This answer"), "partial text stays");
          // The visitor reads a sentence for visitors, never the operator's cause.
          const note = await failed.locator("em").innerText();
          assertEquals(
            note,
            "The assistant couldn't answer just now. Please try again in a moment.",
          );
          assertOk(!/provider|key|HTTP/i.test(note), note);
        } finally {
          fake.mode = "ok";
        }
        await idle(page);
        await page.reload();
        await page.locator(".msg.visitor .bubble", { hasText: "Tell me more" }).waitFor();
        await input.fill("Still there?");
        fake.reply = "Yes, still here.";
        await input.press("Enter");
        await page.locator(".msg.assistant .bubble", { hasText: "Yes, still here." }).waitFor();
        await idle(page);
      },
    );

    await t.step("Escape closes the dialog and gives focus back to the launcher", async () => {
      await input.focus();
      await page.keyboard.press("Escape");
      assertOk(await panel.isHidden());
      assertEquals(await launcher.getAttribute("aria-expanded"), "false");
      assertMatch(await focused(page) ?? "", /^button\.launcher/);
      await page.keyboard.press("Enter");
      await panel.waitFor();
      assertEquals(await focused(page), "textarea.");
    });

    await t.step("the pasted snippet works on another origin under a strict CSP", async () => {
      const snippet = `<script src="${s.url}/widget.js" data-key="acme-midnight" defer></script>`;
      // A strict host page allows Parley's origin and its realtime socket (docs/widget-api.md).
      const socket = s.deps.config.realtimeUrl;
      const csp =
        `default-src 'none'; script-src ${s.url}; connect-src ${s.url} ${socket}; style-src 'none'`;
      const site = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen: () => {} },
        () =>
          new Response(`<!doctype html><title>Shop</title><h1>Shop</h1>${snippet}`, {
            headers: { "content-type": "text/html", "content-security-policy": csp },
          }),
      );
      const other = await context!.newPage();
      other.on("pageerror", (e) => pageErrors.push(e.message));
      const violations: string[] = [];
      other.on(
        "console",
        (m) => /Content.Security.Policy/i.test(m.text()) && violations.push(m.text()),
      );
      try {
        await other.goto(`http://localhost:${site.addr.port}/`);
        const l = other.locator(".launcher");
        await l.waitFor();
        assertEquals(
          await l.evaluate((el) => getComputedStyle(el).backgroundColor),
          "rgb(34, 197, 94)",
        );
        await l.click();
        fake.reply = "Cross-origin hello.";
        await other.locator("textarea").fill("Hi from the shop");
        await other.locator("textarea").press("Enter");
        await other.locator(".msg.assistant .bubble", { hasText: "Cross-origin hello." }).waitFor();
        assertEquals(violations, []);
      } finally {
        await other.close();
        await site.shutdown();
      }
    });

    await t.step("'talk to a human' puts the conversation in handoff_pending", async () => {
      await page.locator("button[aria-label='Talk to a human']").click();
      // No agent is connected in this test: the widget says so instead of promising one.
      await page.getByText("No teammate is online right now").waitFor();
      await page.locator("form.email input").waitFor();
      const { visitor } = await stored(page, "acme-helper");
      const snap = await http(
        s.url,
        "GET",
        `/widget/acme-helper/conversation?visitor_id=${visitor}&conversation_id=${firstConversation}`,
      );
      assertEquals(snap.status, 200);
      assertEquals(snap.body.handoff_state, "handoff_pending");
    });

    await t.step("an agent's reply arrives with the heartbeat, shown once", async () => {
      await agentSays(s.deps, firstConversation, "Hi, Amy here. See https://example.com/help");
      await beatNow(page);
      const agent = page.locator(".msg.agent .bubble");
      await agent.waitFor();
      assertEquals(await agent.innerText(), "Hi, Amy here. See https://example.com/help");
      assertEquals(await agent.locator("a").getAttribute("href"), "https://example.com/help");
      await page.getByText("A teammate joined the chat.").waitFor();
      await page.locator("button[aria-label='Close chat']").click();
      await agentSays(s.deps, firstConversation, "Are you still there?");
      await beatNow(page);
      const badge = page.locator(".launcher .badge");
      await badge.waitFor();
      assertEquals(await badge.innerText(), "1");
      assertEquals(await badge.getAttribute("aria-label"), "1 new message");
      assertEquals(await page.locator("button.teaser").innerText(), "Are you still there?");
      await launcher.click();
      assertOk(await badge.isHidden(), "opening clears the count");
      await page.locator(".msg.agent .bubble", { hasText: "still there" }).waitFor();
      assertOk(await page.locator("button[aria-label='Talk to a human']").isHidden());
      await beatNow(page);
      await page.reload();
      await agent.first().waitFor();
      assertEquals(await page.locator(".msg.agent").count(), 2);
    });

    await t.step(
      "while a human owns the chat, no AI reply: the server's note shows once",
      async () => {
        const aiCalls = fake.requests.length;
        const assistants = await page.locator(".msg.assistant").count();
        const notes = await page.locator(".note").count();
        for (const text of ["Thanks Amy", "One more thing"]) {
          await input.fill(text);
          await input.press("Enter");
          await page.locator(".msg.visitor .bubble", { hasText: text }).waitFor();
          await idle(page);
        }
        assertEquals(await page.locator(".note").count(), notes + 1);
        assertEquals(await page.locator(".msg.assistant").count(), assistants);
        assertEquals(fake.requests.length, aiCalls);
      },
    );

    await t.step("a closed conversation asks for a rating and stores it", async () => {
      await resolve(s.deps, firstConversation);
      await beatNow(page);
      const card = page.locator("form.rating");
      await card.waitFor();
      await card.locator("button[aria-label='5 of 5']").click();
      assertEquals(
        await card.locator("button[aria-label='5 of 5']").getAttribute("aria-pressed"),
        "true",
      );
      await card.locator("textarea").fill("Quick and kind");
      await card.locator("button[type=submit]").click();
      await page.getByText("Thanks for your feedback!").waitFor();
      const [row] = await s.deps.sql<{ rating: number; rating_comment: string }[]>`
        SELECT rating, rating_comment FROM conversations WHERE public_id = ${firstConversation}`;
      assertEquals(row, { rating: 5, rating_comment: "Quick and kind" });
    });

    await t.step("'new chat' closes the conversation on the server and starts clean", async () => {
      const newChat = page.locator("button[aria-label='Start a new chat']");
      await newChat.click();
      await waitUntil(async () => (await page.locator(".msg").count()) === 1, "a clean log");
      assertEquals((await stored(page, "acme-helper")).conversation, null);
      fake.reply = "Welcome back.";
      await input.fill("Hello again");
      await input.press("Enter");
      await page.locator(".msg.assistant .bubble", { hasText: "Welcome back." }).waitFor();
      await idle(page);
      const { visitor, conversation } = await stored(page, "acme-helper");
      assertOk(conversation && conversation !== firstConversation, "a new conversation");
      await waitUntil(async () => await newChat.isVisible(), "the new chat button");
      await newChat.click();
      await waitUntil(async () => (await page.locator(".msg").count()) === 1, "a clean log");
      const snap = await http(
        s.url,
        "GET",
        `/widget/acme-helper/conversation?visitor_id=${visitor}&conversation_id=${conversation}`,
      );
      assertEquals(snap.body.status, "closed");
      assertEquals(await page.getByText("Hello again").count(), 0);
    });

    await t.step("another theme, on the left, with quick replies that send", async () => {
      fake.reply = "Yes, we ship worldwide.";
      await page.goto(`${s.url}/demo?key=acme-midnight`);
      await launcher.waitFor();
      assertEquals(await launcher.innerText(), "Ask us");
      assertEquals(await page.locator(".root").getAttribute("data-theme"), "midnight");
      const box = await launcher.boundingBox();
      assertOk(box && box.x < 200, "launcher on the left");
      await launcher.click();
      await page.getByText("Midnight desk here.").waitFor();
      const chip = page.locator(".chip", { hasText: "Do you ship abroad?" });
      await chip.waitFor();
      await page.screenshot({ path: new URL("widget-midnight.png", OUTPUT).pathname });
      await chip.click();
      await page.locator(".msg.assistant .bubble", { hasText: "ship worldwide" }).waitFor();
      assertEquals(await page.locator(".msg.visitor .bubble").innerText(), "Do you ship abroad?");
      assertEquals(await page.locator(".chip").count(), 0);
    });

    await t.step(
      "Parley.identify: a bad token is refused before streaming, a signed one is trusted",
      async () => {
        await idle(page);
        const token = await signJwt({
          sub: "u_42",
          name: "Ada Verified",
          email: "ada@example.com",
          exp: Math.floor(Date.now() / 1000) + 3600,
        }, "acme-identity-secret");
        const identify = (tk: string) =>
          page.evaluate((t) => {
            (globalThis as unknown as { Parley: { identify(t: string): void } }).Parley.identify(t);
          }, tk);
        const visitorBubbles = await page.locator(".msg.visitor").count();
        const notes = await page.locator(".note").count();
        await identify("not.a.token");
        await input.fill("Who am I?");
        await input.press("Enter");
        await waitUntil(async () => (await page.locator(".note").count()) > notes, "the refusal");
        assertOk((await page.locator(".note").last().innerText()).length > 0);
        assertEquals(await input.inputValue(), "Who am I?", "the refused text is given back");
        assertEquals(await page.locator(".msg.visitor").count(), visitorBubbles);
        await idle(page);
        await identify(token);
        fake.reply = "Hello Ada.";
        await input.press("Enter");
        await page.locator(".msg.assistant .bubble", { hasText: "Hello Ada." }).waitFor();
        await idle(page);
        const { conversation } = await stored(page, "acme-midnight");
        const [row] = await s.deps.sql<{ visitor_name: string; visitor_email: string }[]>`
        SELECT visitor_name, visitor_email FROM conversations WHERE public_id = ${conversation}`;
        assertEquals(row, { visitor_name: "Ada Verified", visitor_email: "ada@example.com" });
      },
    );

    await t.step(
      "proactive message once per session; pre-chat details reach the server",
      async () => {
        fake.reply = "Thanks Pat.";
        await page.goto(`${s.url}/demo?key=acme-forms`);
        const teaser = page.locator(".proactive");
        await teaser.waitFor();
        assertEquals(await teaser.locator("button.teaser").innerText(), "Need a hand?");
        await page.reload();
        await launcher.waitFor();
        await new Promise((r) => setTimeout(r, 400));
        assertOk(await teaser.isHidden(), "not shown twice in one session");
        await launcher.click();
        const form = page.locator("form.prechat");
        await form.waitFor();
        assertOk(await input.isDisabled(), "composer waits for the form");
        await form.locator("input[name=name]").fill("Pat Visitor");
        await form.locator("input[name=email]").fill("pat@example.com");
        await form.locator("button[type=submit]").click();
        await waitUntil(async () => await input.isEnabled(), "the composer");
        await input.fill("Hi there");
        await input.press("Enter");
        await page.locator(".msg.assistant .bubble", { hasText: "Thanks Pat." }).waitFor();
        const { conversation } = await stored(page, "acme-forms");
        const [row] = await s.deps.sql<{ visitor_name: string; visitor_email: string }[]>`
        SELECT visitor_name, visitor_email FROM conversations WHERE public_id = ${conversation}`;
        assertEquals(row, { visitor_name: "Pat Visitor", visitor_email: "pat@example.com" });
      },
    );

    await t.step("proactive conditions: scroll depth, exit intent, URL match", async () => {
      const teaser = page.locator(".proactive");
      const settle = () => new Promise((r) => setTimeout(r, 300));

      await page.goto(`${s.url}/demo?key=pro-scroll`);
      await launcher.waitFor();
      await settle();
      assertOk(await teaser.isHidden(), "not before scrolling 60 %");
      await page.evaluate(() => scrollTo(0, document.documentElement.scrollHeight));
      await teaser.waitFor();

      await page.goto(`${s.url}/demo?key=pro-exit`);
      await launcher.waitFor();
      await settle();
      assertOk(await teaser.isHidden(), "not before the delay");
      await page.evaluate(() =>
        document.dispatchEvent(new MouseEvent("mouseout", { clientX: 300, clientY: 0 }))
      );
      await teaser.waitFor();

      await page.goto(`${s.url}/demo?key=pro-url`);
      await launcher.waitFor();
      await settle();
      assertOk(await teaser.isHidden(), "not on a page without 'pricing' in its URL");
      await page.goto(`${s.url}/demo?key=pro-url&from=pricing`);
      await teaser.waitFor();
      assertEquals(await page.locator("button.teaser").innerText(), "Hello from pro-url");
    });

    await t.step("on a phone-sized screen the open chat fills the screen", async () => {
      const phone = await browser.newContext({
        viewport: { width: 390, height: 844 },
        isMobile: true,
        hasTouch: true,
        deviceScaleFactor: 2,
      });
      try {
        const p = await phone.newPage();
        p.on("pageerror", (e) => pageErrors.push(e.message));
        await p.goto(`${s.url}/demo?key=acme-helper`);
        await p.locator(".launcher").tap();
        await p.locator(".panel").waitFor();
        await p.getByText("Hello from Acme!").waitFor();
        assertEquals(await p.locator(".panel").boundingBox(), {
          x: 0,
          y: 0,
          width: 390,
          height: 844,
        });
        await p.screenshot({ path: new URL("widget-phone.png", OUTPUT).pathname });
      } finally {
        await phone.close();
      }
    });

    await t.step("no script errors on any page", () => {
      assertEquals(pageErrors, []);
    });
  } finally {
    await context?.close().catch(() => {});
    await browser.close();
    await s.stop();
    await fake.close();
  }
});
