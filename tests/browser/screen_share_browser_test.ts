/// <reference lib="dom" />
/**
 * Screen sharing end to end in headless Chromium (branding `screen_share`):
 * a visitor on a shop page (another origin) chats through the real widget;
 * an agent in the real inbox clicks "View screen"; the widget asks the
 * visitor, and loads its recorder (widget-screen.js) only once they accept;
 * the visitor types a card number and a password; the inbox's read-only view
 * shows the shop page's text and never what was typed; the visitor stops and
 * the inbox says so; turning the bot's screen sharing off from the dashboard
 * ends a live share on both sides. Screenshots of both sides go to
 * tests/output/.
 */
import type { BrowserContext, Page } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, PASSWORD, standardSeed } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { freePort } from "../helpers/net.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";

const OUTPUT = new URL("../output/", import.meta.url);
const CARD = "4242 4242 4242 4242";
const SECRET = "hunter2-very-secret";

Deno.test(
  "screen share: consent, masked inputs, the inbox's replay",
  serverTestOptions,
  async (t) => {
    await Deno.mkdir(OUTPUT, { recursive: true });
    const fake = startFakeAi({ reply: "Happy to help." });
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
    const setFlag = async (on: boolean) => {
      await s.deps.sql`
      UPDATE chatbots SET branding = branding || ${s.deps.sql.json({ screen_share: on })}
       WHERE public_key = 'acme-helper'`;
    };
    await setFlag(true);
    const snippet = `<script src="${s.url}/widget.js" data-key="acme-helper" defer></script>`;
    const shop = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () =>
        new Response(
          `<!doctype html><html><head><title>Checkout · Acme Shop</title>
<style>body{font:16px sans-serif;margin:40px}.promo{color:#0a7;font-weight:bold}</style></head>
<body><h1>Checkout at Acme Shop</h1>
<p class="promo" id="promo">Spring sale: 20% off garden tools</p>
<form><p><label>Card number <input id="card" name="card" autocomplete="cc-number"></label></p>
<p><label>Password <input id="password" type="password"></label></p></form>
${snippet}</body></html>`,
          { headers: { "content-type": "text/html; charset=utf-8" } },
        ),
    );
    const shopUrl = `http://localhost:${shop.addr.port}/checkout?session=tok_should_not_leak`;
    const browser = await launchChromium();
    const contexts: BrowserContext[] = [];
    const errors: string[] = [];
    const newPage = async () => {
      const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
      contexts.push(context);
      const page = await context.newPage();
      page.on("pageerror", (e) => errors.push(e.message));
      return page;
    };
    const recorderRequests: string[] = [];
    try {
      const visitor = await newPage();
      visitor.on(
        "request",
        (r) => r.url().includes("widget-screen.js") && recorderRequests.push(r.url()),
      );
      const agent = await newPage();
      agent.on("console", (m) => console.log("AGENT", m.type(), m.text()));
      let conversation = "";

      await t.step(
        "the recorder and the viewer are served apart, with strict policies",
        async () => {
          const rec = await fetch(`${s.url}/widget-screen.js`);
          assertEquals(rec.status, 200);
          assertOk(rec.headers.get("content-type")?.startsWith("text/javascript"));
          assertEquals(rec.headers.get("access-control-allow-origin"), "*");
          assertOk((await rec.text()).includes("ParleyScreenRecorder"));
          const widgetJs = await (await fetch(`${s.url}/widget.js`)).text();
          assertOk(!widgetJs.includes("maskAllInputs"), "rrweb is not inside widget.js");
          const viewer = await fetch(`${s.url}/inbox/screen`);
          await viewer.body?.cancel();
          const csp = viewer.headers.get("content-security-policy") ?? "";
          assertOk(
            csp.includes("script-src 'self'") && csp.includes("frame-ancestors 'self'"),
            csp,
          );
          assertOk(!/script-src[^;]*unsafe/.test(csp), csp);
          assertEquals(viewer.headers.get("x-frame-options"), "SAMEORIGIN");
          const inbox = await fetch(`${s.url}/inbox`);
          await inbox.body?.cancel();
          assertOk(inbox.headers.get("content-security-policy")?.includes("frame-src 'self'"));
        },
      );

      await t.step("the visitor chats on the shop page", async () => {
        await visitor.goto(shopUrl);
        await visitor.locator(".launcher").click();
        await visitor.locator("textarea[aria-label=Message]").fill("Where do I enter my card?");
        await visitor.locator("textarea[aria-label=Message]").press("Enter");
        await visitor.locator(".msg.assistant .bubble", { hasText: "Happy to help." }).waitFor();
        conversation = await visitor.evaluate(() =>
          Object.values(localStorage).find((v) => /^[0-9a-f-]{36}$/.test(v)) ?? ""
        );
        assertOk(conversation, "the widget stored its conversation");
      });

      await t.step("the agent asks; the widget asks the visitor, nothing loaded yet", async () => {
        // Off: the inbox offers nothing.
        await setFlag(false);
        await signIn(agent, s.url, conversation);
        await agent.getByRole("button", { name: "Resolve" }).waitFor();
        assertEquals(await agent.getByRole("button", { name: "View screen" }).count(), 0);
        await setFlag(true);
        await agent.reload();
        await agent.locator(".conn[data-state=connected]", { hasText: "live" }).waitFor();
        await agent.getByRole("button", { name: "View screen" }).click();
        await agent.locator(".screen-status", { hasText: "Waiting for the visitor" }).waitFor();
        await visitor.getByText("A teammate would like to see this page").waitFor();
        assertEquals(recorderRequests, [], "no recorder before consent");
        await visitor.locator("#card").fill("4000 0000 0000 0002");
        await visitor.screenshot({ path: new URL("screen_share_consent.png", OUTPUT).pathname });
      });

      await t.step("consent: the inbox shows the page, inputs masked", async () => {
        await visitor.getByRole("button", { name: "Share this page" }).click();
        await visitor.locator(".sharebar", { hasText: "Sharing this page" }).waitFor();
        assertEquals(recorderRequests.length, 1, "the recorder loads after consent");
        await agent.locator(".screen-status", { hasText: "Live" }).waitFor();
        await visitor.locator("#card").fill(CARD);
        await visitor.locator("#password").fill(SECRET);
        const replay = agent.frameLocator("iframe.screen-frame").frameLocator("iframe");
        await replay.locator("#promo", { hasText: "Spring sale: 20% off garden tools" }).waitFor({
          timeout: 15_000,
        });
        await replay.locator("h1", { hasText: "Checkout at Acme Shop" }).waitFor();
        // The typed values arrive as input events, masked; wait until the card field shows one.
        const card = replay.locator("#card");
        await waitFor(async () => (await card.inputValue()).length > 0, "the masked card value");
        const html = await replay.locator("html").evaluate((el) => {
          const inputs = [...el.querySelectorAll("input")].map((i) => i.value);
          return el.outerHTML + inputs.join("|");
        });
        for (const secret of [CARD, "4242", SECRET, "4000 0000", "tok_should_not_leak"]) {
          assertOk(!html.includes(secret), `"${secret}" must not reach the agent`);
        }
        assertOk(/^•+$/.test(await card.inputValue()), await card.inputValue());
        // The visitor's page is rebuilt where no script may run and nothing can be clicked.
        const inner = agent.frameLocator("iframe.screen-frame").locator("iframe");
        const sandbox = await inner.getAttribute("sandbox") ?? "";
        assertOk(!sandbox.includes("allow-scripts"), `sandbox="${sandbox}"`);
        assertEquals(await inner.evaluate((el) => getComputedStyle(el).pointerEvents), "none");
        await agent.screenshot({ path: new URL("screen_share_inbox.png", OUTPUT).pathname });
        await visitor.screenshot({ path: new URL("screen_share_visitor.png", OUTPUT).pathname });
      });

      await t.step("the visitor stops; the inbox says so", async () => {
        await visitor.getByRole("button", { name: "Stop sharing" }).click();
        await visitor.getByText("You stopped sharing your screen.").waitFor();
        await agent.locator(".screen-status", { hasText: "The visitor stopped sharing." })
          .waitFor();
      });

      await t.step("asked again and declined", async () => {
        await agent.getByRole("button", { name: "View screen" }).click();
        await visitor.getByRole("button", { name: "No thanks" }).click();
        await agent.locator(".screen-status", { hasText: "declined" }).waitFor();
      });
      await t.step("leaving the page ends the share", async () => {
        await agent.getByRole("button", { name: "View screen" }).click();
        await visitor.getByRole("button", { name: "Share this page" }).click();
        await agent.locator(".screen-status", { hasText: "Live" }).waitFor();
        await visitor.goto("about:blank");
        await agent.locator(".screen-status", { hasText: "The visitor left the page" }).waitFor();
      });
      await t.step("a request made while the visitor was away is asked on return", async () => {
        await agent.getByRole("button", { name: "View screen" }).click();
        await agent.locator(".screen-status", { hasText: "Waiting for the visitor" }).waitFor();
        await visitor.goto(shopUrl);
        await visitor.getByRole("button", { name: "Share this page" }).click();
        await agent.locator(".screen-status", { hasText: "Live" }).waitFor();
        const replay = agent.frameLocator("iframe.screen-frame").frameLocator("iframe");
        await replay.locator("#promo", { hasText: "Spring sale" }).waitFor({ timeout: 15_000 });
      });
      await t.step("turning screen sharing off ends the live share on both sides", async () => {
        await visitor.locator(".sharebar", { hasText: "Sharing this page" }).waitFor();
        const login = await http(s.url, "POST", "/api/dashboard/login", {
          body: { email: EMAIL.acmeOwner, password: PASSWORD },
        });
        assertEquals(login.status, 200, login.text);
        const off = await http(s.url, "PUT", "/api/dashboard/chatbots/acme-helper", {
          token: login.body.token,
          body: { name: "Acme Helper", branding: { screen_share: false } },
        });
        assertEquals(off.status, 200, off.text);
        await visitor.getByText("Screen sharing ended.").waitFor();
        await visitor.locator(".sharebar").waitFor({ state: "hidden" });
        await agent.locator(".screen-status", { hasText: "Screen sharing was turned off" })
          .waitFor();
      });
      assertEquals(errors, []);
    } finally {
      for (const c of contexts) await c.close().catch(() => {});
      await browser.close();
      await shop.shutdown();
      await s.stop();
      await fake.close();
    }
  },
);

async function signIn(page: Page, base: string, conversation: string): Promise<void> {
  await signInAt(page, `${base}/inbox?conversation=${conversation}`, EMAIL.acmeAgent);
  await page.locator(".conn[data-state=connected]", { hasText: "live" }).waitFor();
}

async function waitFor(check: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
