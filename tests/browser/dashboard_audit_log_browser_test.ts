/// <reference lib="dom" />
/**
 * The dashboard's Audit log screen in headless Chromium: the owner sees the
 * rows of the actions taken (a token name with markup shown as text),
 * narrows them by action, saves the filtered log as CSV; a viewer has no
 * such screen in the navigation and cannot open it by its address.
 * Screenshots at desktop and phone width under tests/output/.
 */
import type { Browser, Page } from "playwright-core";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { launchChromium, signInAt } from "../helpers/browser.ts";
import { D, dashboardSeed } from "../dashboard/dashboard_seed.ts";

const OUTPUT = new URL("../output/", import.meta.url);
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };
const MARKUP = '<img src=x onerror="alert(1)">';

Deno.test("dashboard audit log in headless Chromium", serverTestOptions, async (t) => {
  await Deno.mkdir(OUTPUT, { recursive: true });
  const s = await startTestServer({ seed: dashboardSeed() });
  let browser: Browser | null = null;
  const problems: string[] = [];
  const open = async (email: string, viewport = DESKTOP): Promise<Page> => {
    const context = await browser!.newContext({ viewport, acceptDownloads: true });
    const page = await context.newPage();
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("dialog", (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    await signInAt(page, `${s.url}/dashboard`, email);
    await page.locator("body[data-screen]").waitFor();
    return page;
  };
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: new URL(`dashboard-${name}.png`, OUTPUT).pathname, fullPage: true });
  const call = (method: string, path: string, body?: unknown) =>
    http(s.url, method, path, { token: D.acme.owner, ...(body ? { body } : {}) });
  try {
    assertEquals((await call("POST", "/api/dashboard/api-tokens", { name: MARKUP })).status, 201);
    const key = { api_key: "sk-browser-audit-key-0042" };
    assertEquals((await call("PUT", "/api/dashboard/keys/provider_3", key)).status, 200);
    assertEquals((await call("DELETE", "/api/dashboard/keys/provider_3")).status, 200);
    browser = await launchChromium();
    const owner = await open(EMAIL.acmeOwner);

    await t.step("the owner sees who did what; markup stays text", async () => {
      await owner.getByRole("link", { name: "Audit log" }).click();
      await owner.locator("tr[data-audit]").first().waitFor();
      // The owner's own sign-in to this browser is the newest row.
      assertEquals(await owner.locator("tr[data-audit]").count(), 4);
      assertEquals(
        await owner.locator("tr[data-audit]").evaluateAll((rows) =>
          rows.map((r) => r.getAttribute("data-action"))
        ),
        ["auth.sign_in", "provider_key.removed", "provider_key.set", "api_token.created"],
      );
      const created = owner.locator('tr[data-action="api_token.created"]');
      assertOk((await created.textContent())!.includes(`name: ${MARKUP}`));
      assertOk((await created.textContent())!.includes(EMAIL.acmeOwner));
      assertEquals(await owner.locator(".audit-list img").count(), 0);
      await shot(owner, "audit-log-desktop");
    });

    await t.step("filtered by action, then saved as CSV", async () => {
      const filters = owner.getByRole("search", { name: "Filter the audit log" });
      await filters.locator("select[name=action]").selectOption("provider_key.set");
      await filters.getByRole("button", { name: "Filter" }).click();
      await owner.getByText("1 entry shown.").waitFor();
      assertEquals(
        await owner.locator("tr[data-audit]").first().getAttribute("data-action"),
        "provider_key.set",
      );
      assertOk(
        (await owner.locator("tr[data-audit]").first().textContent())!.includes(
          "provider provider_3",
        ),
      );
      await shot(owner, "audit-log-filtered-desktop");
      const [download] = await Promise.all([
        owner.waitForEvent("download"),
        filters.getByRole("button", { name: "Export CSV" }).click(),
      ]);
      assertOk(/^audit-log-acme-\d{4}-\d\d-\d\d\.csv$/.test(download.suggestedFilename()));
      const lines = (await Deno.readTextFile(await download.path())).replace(/^\uFEFF/, "")
        .split("\r\n").filter(Boolean);
      assertEquals(lines.length, 2, lines.join("\n"));
      assertOk(lines[1]!.includes(",provider_key.set,provider,provider_3,"), lines[1]);
      await filters.getByRole("button", { name: "Clear" }).click();
      await owner.getByText("4 entries shown.").waitFor();
    });

    await t.step("at phone width; not for a viewer", async () => {
      const phone = await open(EMAIL.acmeAdmin, PHONE);
      await phone.goto(`${s.url}/dashboard#/audit-log`);
      await phone.locator("tr[data-audit]").first().waitFor();
      await shot(phone, "audit-log-phone");
      const viewer = await open(EMAIL.acmeViewer);
      assertEquals(await viewer.getByRole("link", { name: "Audit log" }).count(), 0);
      await viewer.goto(`${s.url}/dashboard#/audit-log`);
      await viewer.locator("body[data-screen=overview]").waitFor();
      assertEquals(await viewer.locator("tr[data-audit]").count(), 0);
    });
    assertEquals(problems, []);
  } finally {
    await browser?.close();
    await s.stop();
  }
});
