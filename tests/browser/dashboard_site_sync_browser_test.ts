/// <reference lib="dom" />
/**
 * A website source kept in sync on the dashboard's knowledge screen, in
 * headless Chromium: the row shows what the last sync found; Sync now after
 * the site changed shows the new summary without a reload; choosing "daily"
 * shows when the next sync is due. Screenshot under tests/output/.
 */
import type { Browser } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { page as html, startLocalSite } from "../helpers/local_site.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { pollUntil } from "../portal/poll.ts";
import { D, dashboardSeed } from "../dashboard/dashboard_seed.ts";

const OUTPUT = new URL("../output/", import.meta.url);

Deno.test("dashboard: a website kept in sync", serverTestOptions, async (t) => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const ai = startFakeAi();
  const site = startLocalSite({
    "/": { ...html("Help", ["Parcels ship on Tuesdays."], ["/faq"]), etag: "h1" },
    "/faq": { ...html("FAQ", ["Gift wrapping costs two euros."]), etag: "f1" },
  });
  const s = await startTestServer({ seed: dashboardSeed(), env: { AI_BASE_URL: ai.baseUrl } });
  const base = "/api/dashboard/chatbots/acme-helper/knowledge";
  let browser: Browser | null = null;
  const problems: string[] = [];
  try {
    const created = await http(s.url, "POST", base, {
      token: D.acme.owner,
      body: { type: "url", source_url: `${site.url}/` },
    });
    assertEquals(created.status, 201, created.text);
    const id = created.body.data.id as number;
    await pollUntil(async () => {
      const r = await http(s.url, "GET", base, { token: D.acme.owner });
      const src = (r.body.data as { id: number; status: string }[]).find((x) => x.id === id);
      return src?.status === "ready";
    }, "the first crawl");

    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    await signInAt(page, `${s.url}/dashboard`, EMAIL.acmeOwner);
    await page.locator("body[data-screen]").waitFor();
    await page.goto(`${s.url}/dashboard#/bots/acme-helper/knowledge`);
    const row = page.locator(`tr[data-source="${id}"]`);

    await t.step("the row shows the first crawl's summary and no schedule", async () => {
      await row.locator("[data-last-sync]").waitFor();
      assertOk(
        (await row.locator("[data-last-sync]").textContent())!.includes(
          "2 added · 0 changed · 0 removed · 0 failed",
        ),
      );
      assertEquals(await row.locator("[data-next-sync]").textContent(), "Not kept in sync");
    });

    await t.step("Sync now after an edit shows exactly the change", async () => {
      site.routes["/faq"] = { ...html("FAQ", ["Gift wrapping is free."]), etag: "f2" };
      await row.getByRole("button", { name: "Sync now" }).click();
      await pollUntil(
        async () =>
          (await row.locator("[data-last-sync]").textContent())?.includes(
            "0 added · 1 changed · 0 removed · 0 failed",
          ),
        "the new summary on screen",
      );
      assertEquals(site.notModified, ["/"]);
    });

    await t.step("daily: the next sync's time is shown", async () => {
      await row.locator("select[name=sync_schedule]").selectOption("daily");
      await pollUntil(
        async () =>
          (await row.locator("[data-next-sync]").textContent())?.startsWith("Synced daily; next"),
        "the next sync's time",
      );
      await page.screenshot({
        path: new URL("dashboard-knowledge-sync.png", OUTPUT).pathname,
        fullPage: true,
      });
      assertEquals(problems, []);
    });
  } finally {
    await browser?.close();
    await s.stop();
    await site.close();
    await ai.close();
  }
});
