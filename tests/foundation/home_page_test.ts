/**
 * `GET /` is a small page linking the dashboard, the inbox, the API reference
 * and the demo (it was a JSON 404), under a strict policy; the favicon exists
 * (`/favicon.ico` and `/favicon.svg`); other unknown paths stay JSON 404s.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";

Deno.test("GET / links the surfaces; the favicon is served", serverTestOptions, async () => {
  const s = await startTestServer();
  try {
    const home = await fetch(`${s.url}/`);
    assertEquals(home.status, 200);
    assertOk(home.headers.get("content-type")!.startsWith("text/html"));
    assertOk(home.headers.get("content-security-policy")!.includes("default-src 'none'"));
    const html = await home.text();
    for (const href of ["/dashboard", "/inbox", "/api/docs", "/demo"]) {
      assertOk(html.includes(`href="${href}"`), href);
    }
    for (const path of ["/favicon.ico", "/favicon.svg"]) {
      const icon = await fetch(`${s.url}${path}`);
      assertEquals(icon.status, 200);
      assertEquals(icon.headers.get("content-type"), "image/svg+xml");
      assertOk((await icon.text()).startsWith("<svg"));
    }
    const other = await fetch(`${s.url}/no-such-page`);
    assertEquals(other.status, 404);
    assertOk((await other.json()).message);
  } finally {
    await s.stop();
  }
});
