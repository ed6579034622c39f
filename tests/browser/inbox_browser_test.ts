/// <reference lib="dom" />
/**
 * The agents' web inbox in headless Chromium (Debian's, via playwright-core):
 * two agents sign in; a visitor starts a chat in the widget (another page)
 * and it arrives live; a canned reply reaches the visitor's widget; take
 * over, release, resolve and reopen move the section counts live in both
 * agents' browsers; markup from a visitor is shown as text; the token is
 * renewed past half its life; phone width; the script's size and the first
 * render of 60 rows (Performance API). Screenshots go to tests/output/.
 */
import type { BrowserContext, Page } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, standardSeed } from "../helpers/fixtures.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { gzip } from "../../routers/doors/static_files.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";

const OUTPUT = new URL("../output/", import.meta.url);
const XSS = "<img src=x onerror=alert(1)>";

async function waitUntil(check: () => Promise<boolean>, what: string, ms = 15_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A section's count as the page shows it. */
async function count(page: Page, section: string): Promise<number> {
  return Number(await page.locator(`[data-count="${section}"]`).innerText());
}

async function counts(page: Page) {
  const out: Record<string, number> = {};
  for (const s of ["waiting", "mine", "team", "ai", "resolved"]) out[s] = await count(page, s);
  return out;
}

/** Waits until the page's counts are `want` (only the sections named). */
async function countsBecome(page: Page, want: Record<string, number>, what: string) {
  await waitUntil(async () => {
    const now = await counts(page);
    return Object.entries(want).every(([k, v]) => now[k] === v);
  }, `${what}: ${JSON.stringify(want)} (now ${JSON.stringify(await counts(page))})`);
}

Deno.test("web inbox works end to end in headless Chromium", serverTestOptions, async (t) => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const fake = startFakeAi({ reply: "Happy to help." });
  const s = await startTestServer({
    seed: standardSeed(),
    env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
  });
  const browser = await launchChromium();
  const problems: string[] = [];
  const dialogs: string[] = [];
  const contexts: BrowserContext[] = [];
  /** A page in a fresh browser; on inbox pages every console error is a problem. */
  const newPage = async (viewport = { width: 1280, height: 800 }, inbox = true) => {
    const context = await browser.newContext({ viewport });
    contexts.push(context);
    const page = await context.newPage();
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("console", (m) => {
      // The widget's demo page is not under test here (its favicon.ico is a 404).
      if (m.type() === "error" && inbox) {
        problems.push(`console: ${m.text()} (${m.location().url})`);
      }
    });
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    return page;
  };
  const signIn = async (page: Page, email: string) => {
    await signInAt(page, `${s.url}/inbox`, email);
    await page.locator("body[data-ready]").waitFor();
  };
  try {
    const amy = await newPage();
    const ada = await newPage();
    const visitor = await newPage(undefined, false);
    let conversation = "";

    await t.step(
      "the page loads its script and styles as files under a strict policy",
      async () => {
        const res = await fetch(`${s.url}/inbox`);
        const html = await res.text();
        const csp = res.headers.get("content-security-policy")!;
        assertOk(csp.includes("script-src 'self';") && csp.includes("style-src 'self';"), csp);
        assertOk(!csp.includes("unsafe") && !csp.includes("sha256"), "nothing inline allowed");
        assertOk(!/<script>|<style|style=/.test(html), "no inline script or style");
        const js = await fetch(`${s.url}/inbox/app.js`);
        assertEquals(js.headers.get("content-type"), "text/javascript; charset=utf-8");
        const zipped = (await gzip(new Uint8Array(await js.arrayBuffer()))).byteLength;
        assertOk(zipped < 60 * 1024, `app.js is ${zipped} bytes gzipped`);
        console.log(`inbox app.js: ${zipped} bytes gzipped`);
        assertEquals(
          (await fetch(`${s.url}/inbox/app.css`)).headers.get("content-type"),
          "text/css; charset=utf-8",
        );
      },
    );

    await t.step("a wrong password is refused in the form; the right one signs in", async () => {
      await amy.goto(`${s.url}/inbox`);
      await amy.locator("input[name=email]").fill(EMAIL.acmeAgent);
      await amy.locator("input[name=password]").fill("not the password");
      await amy.locator("button[type=submit]").click();
      await amy.getByText("These credentials do not match our records.").waitFor();
      // Chromium itself logs the refused login's 401; nothing after this may log an error.
      problems.length = 0;
      await signIn(amy, EMAIL.acmeAgent);
      await signIn(ada, EMAIL.acmeOwner);
      assertEquals(await amy.locator(".top .me").innerText(), "Amy Agent");
      // Both follow the workspace over the realtime socket (polling is only the fallback).
      await amy.locator(".conn[data-state=connected]", { hasText: "live" }).waitFor();
      await ada.locator(".conn[data-state=connected]", { hasText: "live" }).waitFor();
      assertEquals(await count(amy, "ai"), 0);
    });

    await t.step("a visitor's new chat arrives live in both inboxes", async () => {
      await visitor.goto(`${s.url}/demo?key=acme-helper`);
      await visitor.locator(".launcher").click();
      const input = visitor.locator("textarea[aria-label=Message]");
      await input.fill("Where is my parcel?");
      await input.press("Enter");
      await visitor.locator(".msg.assistant .bubble", { hasText: "Happy to help." }).waitFor();
      for (const page of [amy, ada]) {
        await page.locator("li.row", { hasText: "Happy to help." }).waitFor();
        await countsBecome(page, { ai: 1 }, "the AI section counts the new chat");
      }
      conversation = (await amy.locator("li.row").first().getAttribute("data-id"))!;
    });

    await t.step("opening shows the messages and the visitor panel", async () => {
      await amy.keyboard.press("j");
      await amy.locator(".msg-visitor .msg-body", { hasText: "Where is my parcel?" }).waitFor();
      assertEquals(
        await amy.locator("li.row[aria-selected=true]").getAttribute("data-id"),
        conversation,
      );
      await amy.locator(".visitor-pane dt", { hasText: "Device" }).waitFor();
      await ada.locator(`li.row[data-id="${conversation}"]`).click();
      await ada.locator(".msg-visitor .msg-body", { hasText: "Where is my parcel?" }).waitFor();
    });

    await t.step("typing shows both ways: visitor to agents, agent to visitor", async () => {
      await visitor.locator("textarea[aria-label=Message]").pressSequentially("Also, ");
      await amy.locator(".typing-note", { hasText: /^Visitor \w+ is typing…$/ }).waitFor();
      await amy.locator("textarea.composer-input").pressSequentially("Let me ");
      await visitor.getByText("Amy Agent is typing…").waitFor();
      await ada.locator(".typing-note", { hasText: "Amy Agent is typing…" }).waitFor();
      await amy.locator("textarea.composer-input").fill("");
      await amy.locator("textarea.composer-input").press("Escape"); // leaves the composer
      await visitor.locator("textarea[aria-label=Message]").fill("");
    });

    await t.step("a canned reply by shortcut reaches the visitor and the other agent", async () => {
      await amy.keyboard.press("r");
      const composer = amy.locator("textarea.composer-input");
      assertOk(
        await composer.evaluate((el) => el === document.activeElement),
        "r focuses the reply",
      );
      await composer.pressSequentially("/hel");
      await amy.locator(".canned-picker li", { hasText: "/hello" }).waitFor();
      await composer.press("Tab");
      assertEquals(await composer.inputValue(), "Hello! How can I help?");
      await composer.press("Enter");
      await amy.locator(".msg-agent .msg-body", { hasText: "Hello! How can I help?" }).waitFor();
      assertEquals(await composer.inputValue(), "");
      // At once: over the widget's socket, not its next heartbeat (15 s).
      await visitor.locator(".msg.agent .bubble", { hasText: "Hello! How can I help?" })
        .waitFor({ timeout: 3_000 });
      await ada.locator(".msg-agent .msg-body", { hasText: "Hello! How can I help?" }).waitFor();
      await countsBecome(amy, { mine: 1, ai: 0 }, "the reply made it Amy's");
      await countsBecome(ada, { team: 1, mine: 0, ai: 0 }, "for Ada it is the team's");
    });

    await t.step("release, take over, resolve and reopen move the counts live", async () => {
      await amy.locator("button[data-action=release]").click();
      await countsBecome(amy, { mine: 0, ai: 1 }, "released");
      await countsBecome(ada, { team: 0, ai: 1 }, "released, seen by Ada");
      await amy.keyboard.press("t");
      await countsBecome(amy, { mine: 1, ai: 0 }, "taken over");
      await countsBecome(ada, { team: 1, ai: 0 }, "taken over, seen by Ada");
      await amy.keyboard.press("e");
      await countsBecome(amy, { mine: 0, resolved: 1 }, "resolved");
      await countsBecome(ada, { team: 0, resolved: 1 }, "resolved, seen by Ada");
      await amy.locator("button[data-action=reopen]").click();
      await countsBecome(amy, { resolved: 0, ai: 1 }, "reopened");
      await countsBecome(ada, { resolved: 0, ai: 1 }, "reopened, seen by Ada");
      await amy.locator(".events li", { hasText: "reopened by Amy Agent" }).waitFor();
    });

    await t.step("notes, tags, watch: private to agents, live for both", async () => {
      await amy.keyboard.press("n");
      const composer = amy.locator("textarea.composer-input");
      await composer.fill("Parcel is stuck in customs.");
      await composer.press("Enter");
      await amy.locator(".note-body", { hasText: "stuck in customs" }).waitFor();
      await ada.locator(".note-body", { hasText: "stuck in customs" }).waitFor();
      await amy.locator("select.add-tag").selectOption({ label: "billing" });
      await amy.locator(".visitor-pane .tag", { hasText: "billing" }).waitFor();
      await ada.locator(`li.row[data-id="${conversation}"] .tag`, { hasText: "billing" }).waitFor();
      await amy.locator("button[data-action=watch]").click();
      await amy.locator("button[data-action=unwatch]").waitFor();
      await visitor.waitForTimeout(300);
      assertEquals(await visitor.getByText("stuck in customs").count(), 0);
    });

    await t.step("a visitor's markup is shown as text, never run", async () => {
      const input = visitor.locator("textarea[aria-label=Message]");
      await input.fill(XSS);
      await input.press("Enter");
      const body = amy.locator(".msg-visitor .msg-body", { hasText: "onerror" });
      await body.waitFor();
      assertEquals(await body.innerText(), XSS);
      assertEquals(await amy.locator(".thread img, .rows img").count(), 0);
      await ada.locator(`li.row[data-id="${conversation}"] .row-preview`, {
        hasText: "Happy to help.",
      })
        .waitFor();
      assertEquals(dialogs, []);
      await amy.screenshot({ path: new URL("inbox-desktop.png", OUTPUT).pathname });
    });

    await t.step(
      "the AI suggests an answer to the last visitor message; the agent sends it",
      async () => {
        await amy.locator("button.suggest").click();
        const composer = amy.locator("textarea.composer-input");
        const status = amy.locator("p.status");
        await waitUntil(
          async () => (await composer.inputValue()).length > 0 || (await status.innerText()) !== "",
          "the suggestion",
        );
        assertEquals(await status.innerText(), "");
        assertEquals(await composer.getAttribute("aria-label"), "Reply");
        const text = await composer.inputValue();
        await composer.press("Enter");
        await amy.locator(".msg-agent .msg-body", { hasText: text }).last().waitFor();
        await visitor.locator(".msg.agent .bubble", { hasText: text }).last().waitFor({
          timeout: 3_000,
        });
        await composer.press("Escape");
      },
    );

    await t.step("the token is renewed once past half its life", async () => {
      const before = await ada.evaluate(() => {
        const s = JSON.parse(localStorage.getItem("parley:agent-session")!);
        s.expires_at = new Date(Date.now() + 10 * 86400_000).toISOString();
        localStorage.setItem("parley:agent-session", JSON.stringify(s));
        return s.token as string;
      });
      await ada.reload();
      await ada.locator("body[data-ready]").waitFor();
      await waitUntil(async () => {
        const s = await ada.evaluate(() =>
          JSON.parse(localStorage.getItem("parley:agent-session")!)
        );
        return s.token !== before && Date.parse(s.expires_at) > Date.now() + 25 * 86400_000;
      }, "a fresh token in localStorage");
      // The old token still works (refresh never revokes), the page keeps going.
      await ada.locator(".msg-visitor .msg-body", { hasText: "onerror" }).waitFor();
    });

    await t.step("an alert's deep link opens its conversation; alert settings save", async () => {
      await ada.goto(`${s.url}/inbox?conversation=${conversation}`);
      await ada.locator(".msg-visitor .msg-body", { hasText: "Where is my parcel?" }).waitFor();
      await ada.locator("button.alerts-toggle").click();
      const arrived = ada.locator("input[name=event-visitor_arrived]");
      assertEquals(await arrived.isChecked(), false);
      await arrived.check();
      await ada.locator(".alerts-note", { hasText: "Saved." }).waitFor();
      const token = await ada.evaluate(() =>
        JSON.parse(localStorage.getItem("parley:agent-session")!).token as string
      );
      const prefs = await fetch(`${s.url}/api/agent/notifications/preferences`, {
        headers: { authorization: `Bearer ${token}` },
      }).then((r) => r.json());
      assertEquals(prefs.events.visitor_arrived.push, true);
      assertEquals(prefs.events.chat_started.push, true);
      await ada.locator("button.mute").click();
      await ada.locator(".alerts .dnd", { hasText: "Muted until" }).waitFor();
      const sw = await fetch(`${s.url}/inbox/sw.js`);
      assertEquals([sw.status, sw.headers.get("content-type")], [
        200,
        "text/javascript; charset=utf-8",
      ]);
      assertOk((await sw.text()).includes("showNotification"));
      await ada.locator(".alerts button.close").click();
    });

    await t.step("at phone width one pane at a time, readable", async () => {
      const phone = await newPage({ width: 390, height: 844 });
      await signIn(phone, EMAIL.acmeAgent);
      assertOk(await phone.locator(".list-pane").isVisible());
      assertOk(await phone.locator(".conv-pane").isHidden());
      await phone.screenshot({ path: new URL("inbox-phone-list.png", OUTPUT).pathname });
      await phone.locator(`li.row[data-id="${conversation}"]`).click();
      await phone.locator(".msg-agent .msg-body", { hasText: "Hello!" }).waitFor();
      assertOk(await phone.locator(".list-pane").isHidden());
      const overflow = await phone.evaluate(() =>
        document.documentElement.scrollWidth > innerWidth
      );
      assertEquals(overflow, false, "no sideways scrolling");
      await phone.screenshot({ path: new URL("inbox-phone-conversation.png", OUTPUT).pathname });
      await phone.locator("button.back").click();
      await phone.locator(".list-pane").waitFor();
    });

    await t.step("without the socket the inbox polls, and a new chat still arrives", async () => {
      const page = await newPage();
      // The socket is refused the way a server refuses an unknown app key.
      await page.routeWebSocket(/\/app\//, (ws) => ws.close({ code: 4001, reason: "No app" }));
      await signIn(page, EMAIL.acmeAdmin);
      await page.locator(".conn[data-state=unavailable]", { hasText: "polling" }).waitFor();
      const r = await postStream(s.url, "acme-helper", {
        visitor_id: `v_poll_${crypto.randomUUID().slice(0, 8)}`,
        message: "Anyone there without sockets?",
      });
      const id = r.events[0]!.data.conversation_id as string;
      await page.locator(`li.row[data-id="${id}"]`).waitFor({ timeout: 10_000 });
    });

    await t.step("60 conversations are drawn on the first render", async () => {
      for (let i = 0; i < 60; i++) {
        const r = await postStream(s.url, "acme-helper", {
          visitor_id: `v_perf_${i}_${crypto.randomUUID().slice(0, 8)}`,
          message: `Question number ${i} about shipping, returns and the rest`,
        });
        assertEquals(r.status, 200);
      }
      const page = await newPage();
      await signIn(page, EMAIL.acmeAgent);
      assertEquals(await page.locator("li.row").count(), 60);
      // Its speed is measured in bench/first_render_bench.ts, not asserted under the suite's load.
      assertOk(
        await page.evaluate(() => performance.getEntriesByName("inbox-first-render").length === 1),
        "the first render is measured",
      );
    });

    await t.step("no page errors or console errors anywhere", () => {
      assertEquals(problems, []);
    });
  } finally {
    for (const c of contexts) await c.close().catch(() => {});
    await browser.close();
    await s.stop();
    await fake.close();
  }
});
