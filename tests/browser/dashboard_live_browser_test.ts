/// <reference lib="dom" />
/**
 * The dashboard kept current in headless Chromium: the overview's counters
 * and both charts move after a visitor converses through the widget's stream
 * endpoint and an agent resolves the conversation, without a reload (the
 * dashboard channel's `stats.changed`); a crawl's progress shows part-way in
 * the knowledge list from `source.progress` frames on the socket, not from
 * polling; and with WebSockets unavailable the list still reaches "ready" by
 * polling. Screenshots under tests/output/.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, T } from "../helpers/fixtures.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { http } from "../helpers/http.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { dashboardSeed } from "../dashboard/dashboard_seed.ts";
import { page as sitePage, startLocalSite } from "../helpers/local_site.ts";

const OUTPUT = new URL("../output/", import.meta.url);
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };

Deno.test("the dashboard follows the workspace live", serverTestOptions, async (t) => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const fake = startFakeAi({ reply: "Parcels to Norway take four days." });
  // Slow pages, so the crawl is seen part-way.
  const site = startLocalSite({
    "/": sitePage("Shipping", ["We ship parcels on Tuesdays."], ["/a", "/b", "/gone"]),
    "/a": sitePage("Norway", ["Parcels to Norway take four days by ferry."], ["/c"]),
    "/b": sitePage("Wrapping", ["Gift wrapping costs two euros."]),
    "/c": sitePage("Hours", ["The desk answers from nine to five."]),
  }, { delayMs: 700 });
  const s = await startTestServer({
    seed: dashboardSeed(),
    env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
  });
  let browser: Browser | null = null;
  const contexts: BrowserContext[] = [];
  const problems: string[] = [];
  const newPage = async (viewport = DESKTOP, init?: () => void) => {
    const context = await browser!.newContext({ viewport });
    contexts.push(context);
    if (init) await context.addInitScript(init);
    const page = await context.newPage();
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`console: ${m.text()}`);
    });
    return page;
  };
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: new URL(`dashboard-${name}.png`, OUTPUT).pathname, fullPage: true });
  const signIn = async (page: Page) => {
    await signInAt(page, `${s.url}/dashboard`, EMAIL.acmeOwner);
    await page.locator("body[data-screen=overview]").waitFor();
  };
  /** The figures the owner sees: counters, and today's bar of each chart (its tooltip). */
  const figures = (page: Page) =>
    page.evaluate(() => {
      const counter = (k: string) =>
        document.querySelector(`[data-counter=${k}] .counter-value`)!.textContent!;
      const today = [...document.querySelectorAll("figure.chart-card")].map((f) => {
        const bars = f.querySelectorAll("g.bar");
        const last = bars[bars.length - 1]!;
        return {
          title: last.querySelector("title")!.textContent!,
          rects: last.querySelectorAll("rect").length,
        };
      });
      return {
        conversations: counter("conversations"),
        visitor: counter("visitor"),
        ai: counter("ai"),
        human: counter("human"),
        messagesToday: today[0]!,
        resolvedToday: today[1]!,
        used: document.querySelector("[data-usage=messages] .meter-figure")!.textContent!,
      };
    });

  try {
    browser = await launchChromium();
    const owner = await newPage();
    await signIn(owner);
    const navigations = () =>
      owner.evaluate(() => performance.getEntriesByType("navigation").length);

    await t.step(
      "the overview's counters and charts move after a visitor conversation, without a reload",
      async () => {
        const before = await figures(owner);
        const loads = await navigations();
        await shot(owner, "overview-live-before-desktop");
        // A visitor converses through the widget's stream endpoint.
        const first = await postStream(s.url, "acme-helper", {
          visitor_id: "v_overview_live",
          message: "How long do parcels to Norway take?",
        });
        assertEquals(first.status, 200, first.text);
        const conversation = first.events[0]!.data.conversation_id as string;
        await postStream(s.url, "acme-helper", {
          visitor_id: "v_overview_live",
          conversation_id: conversation,
          message: "And to Iceland?",
        });
        const moved = await owner.waitForFunction(
          (b) => {
            const v = document.querySelector("[data-counter=visitor] .counter-value")?.textContent;
            const bars = document.querySelector("figure.chart-card")?.querySelectorAll("g.bar");
            const title = bars?.[bars.length - 1]?.querySelector("title")?.textContent;
            return v !== b.visitor && title !== b.messagesToday.title;
          },
          before,
          { timeout: 15_000 },
        ).then(() => figures(owner));
        const n = (x: string) => Number(x.replace(/[^\d]/g, ""));
        assertEquals(n(moved.visitor), n(before.visitor) + 2, JSON.stringify([before, moved]));
        assertEquals(n(moved.ai), n(before.ai) + 2, JSON.stringify([before, moved]));
        assertEquals(
          n(moved.conversations),
          n(before.conversations) + 1,
          JSON.stringify([before, moved]),
        );
        assertOk(moved.used !== before.used, `${before.used} → ${moved.used}`);
        // Today's bar of the messages chart now stacks visitor and AI messages.
        const todays = (title: string, label: string) =>
          Number(new RegExp(`${label} (\\d+)`).exec(title)![1]);
        assertEquals(
          todays(moved.messagesToday.title, "Visitor"),
          todays(before.messagesToday.title, "Visitor") + 2,
        );
        assertOk(moved.messagesToday.rects >= 2, moved.messagesToday.title);
        await shot(owner, "overview-live-after-desktop");

        // An agent resolves it: the resolutions chart moves too.
        const resolved = await http(
          s.url,
          "POST",
          `/api/agent/conversations/${conversation}/resolve`,
          { token: T.acme.agent.agent, body: {} },
        );
        assertEquals(resolved.status, 200, JSON.stringify(resolved.body));
        await owner.waitForFunction(
          (b) => {
            const bars = document.querySelectorAll("figure.chart-card")[1]?.querySelectorAll(
              "g.bar",
            );
            return bars?.[bars.length - 1]?.querySelector("title")?.textContent !== b;
          },
          before.resolvedToday.title,
          { timeout: 15_000 },
        );
        const after = await figures(owner);
        assertEquals(
          todays(after.resolvedToday.title, "By a human"),
          todays(before.resolvedToday.title, "By a human") + 1,
          after.resolvedToday.title,
        );
        assertEquals(await navigations(), loads, "no reload");
        await shot(owner, "overview-live-resolved-desktop");
        const phone = await newPage(PHONE);
        await phone.goto(`${s.url}/dashboard`);
        await phone.locator("input[name=email]").waitFor();
        await shot(phone, "sign-in-phone");
        await signIn(phone);
        await shot(phone, "overview-live-after-phone");
      },
    );

    await t.step(
      "a crawl's progress shows part-way from the socket, not from polling",
      async () => {
        await owner.goto(`${s.url}/dashboard#/bots/acme-helper/knowledge`);
        await owner.locator("section.knowledge[data-live=true]").waitFor();
        const frames: string[] = [];
        const lists: number[] = [];
        owner.on("request", (r) => {
          if (r.url().includes("dashboard.listKnowledge")) lists.push(Date.now());
        });
        // The app's socket was opened at sign-in, before a listener could attach: read its
        // frames through a fresh page instead.
        const watcher = await newPage();
        watcher.on("websocket", (ws) => {
          ws.on("framereceived", (f) => {
            if (typeof f.payload === "string" && f.payload.includes("source.progress")) {
              frames.push(f.payload);
            }
          });
        });
        await watcher.goto(`${s.url}/dashboard`);
        await watcher.evaluate(
          (v) => localStorage.setItem("parley:dashboard-session", v!),
          await owner.evaluate(() => localStorage.getItem("parley:dashboard-session")),
        );
        await watcher.goto(`${s.url}/dashboard#/bots/acme-helper/knowledge`);
        await watcher.reload();
        await watcher.locator("section.knowledge[data-live=true]").waitFor();

        const form = watcher.locator("form.add-source");
        await form.locator("select[name=type]").selectOption("url");
        await form.locator("input[name=source_url]").fill(`${site.url}/`);
        await form.locator("button[type=submit]").click();
        const row = watcher.locator("tr[data-source]", { hasText: site.url });
        // Part-way: some pages indexed of those found, while it is still indexing.
        await watcher.locator("tr[data-source][data-status=processing] [data-progress]", {
          hasText: /^[1-3] of \d pages indexed/,
        }).waitFor({ timeout: 30_000 });
        await shot(watcher, "knowledge-crawl-progress-desktop");
        await watcher.locator("tr[data-source][data-status=ready]", { hasText: site.url })
          .waitFor({ timeout: 30_000 });
        const text = await row.locator("[data-progress]").innerText();
        assertEquals(text, "4 of 5 pages indexed · 1 failed");
        assertOk(frames.length >= 2, `source.progress frames: ${frames.length}`);
        // The other tab (the owner's) heard it too, and neither polled meanwhile.
        await owner.locator("tr[data-source][data-status=ready]", { hasText: site.url }).waitFor();
        assertOk(lists.length <= 3, `the owner's tab read the list ${lists.length} times`);
        await shot(watcher, "knowledge-crawl-done-desktop");
      },
    );

    await t.step("without WebSockets the list still reaches ready, by polling", async () => {
      const noSocket = await newPage(DESKTOP, () => {
        // A proxy that does not pass WebSockets, as the page sees it.
        // deno-lint-ignore no-explicit-any
        (globalThis as any).WebSocket = class {
          constructor() {
            throw new Error("WebSockets are blocked here");
          }
        };
      });
      await signIn(noSocket);
      await noSocket.goto(`${s.url}/dashboard#/bots/acme-helper/knowledge`);
      await noSocket.locator("section.knowledge[data-live=false]").waitFor();
      const form = noSocket.locator("form.add-source");
      // A crawl of slow pages: it is still pending when the list is first read after adding.
      await form.locator("select[name=type]").selectOption("url");
      await form.locator("input[name=title]").fill("Norway pages");
      await form.locator("input[name=source_url]").fill(`${site.url}/a`);
      const lists: number[] = [];
      noSocket.on("request", (r) => {
        if (r.url().includes("dashboard.listKnowledge")) lists.push(Date.now());
      });
      await form.locator("button[type=submit]").click();
      await noSocket.locator("tr[data-source][data-status=ready]", { hasText: "Norway pages" })
        .waitFor({ timeout: 30_000 });
      assertOk(lists.length >= 2, `read the list ${lists.length} times`);
      assertEquals(
        await noSocket.locator("section.knowledge").getAttribute("data-live"),
        "false",
      );
    });

    await t.step("no page logged an error", () => {
      assertEquals(problems, []);
    });
  } finally {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await s.stop();
    await fake.close();
    await site.close();
  }
});
