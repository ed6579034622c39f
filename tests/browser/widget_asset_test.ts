/**
 * widget.js and /demo as assets: the bundle stays under 25 KB gzipped, is
 * served with an ETag, caching and gzip, answers 304 on a matching
 * If-None-Match, and the demo page embeds the snippet for a safe key only.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed } from "../helpers/fixtures.ts";
import { bundleWidget } from "../../widget/bundle.ts";
import { gzip } from "../../routers/doors/static_files.ts";

const SIZE_BUDGET = 25 * 1024;

Deno.test("widget.js bundles to under 25 KB gzipped, without HTML parsing sinks", async () => {
  const started = performance.now();
  const script = await bundleWidget();
  const ms = performance.now() - started;
  const gz = await gzip(new TextEncoder().encode(script));
  console.log(
    `widget.js: ${script.length} B minified, ${gz.byteLength} B gzipped, ${ms.toFixed(0)} ms`,
  );
  assertOk(gz.byteLength < SIZE_BUDGET, `gzipped size ${gz.byteLength} B exceeds ${SIZE_BUDGET} B`);
  for (const sink of ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("]) {
    assertOk(!script.includes(sink), `the bundle uses ${sink}`);
  }
});

Deno.test("widget assets are served with caching headers", serverTestOptions, async (t) => {
  const s = await startTestServer({ seed: standardSeed() });
  try {
    let etag = "";
    await t.step("GET /widget.js is JavaScript with an ETag and Cache-Control", async () => {
      const res = await fetch(`${s.url}/widget.js`, { headers: { "accept-encoding": "identity" } });
      const text = await res.text();
      assertEquals(res.status, 200);
      assertMatch(res.headers.get("content-type") ?? "", /^text\/javascript/);
      assertMatch(res.headers.get("cache-control") ?? "", /max-age=\d+/);
      etag = res.headers.get("etag") ?? "";
      assertMatch(etag, /^"[0-9a-f]{32}"$/);
      assertEquals(res.headers.get("content-encoding"), null);
      assertEquals(
        res.headers.get("content-length"),
        String(new TextEncoder().encode(text).length),
      );
      assertOk(text.includes("data-key") || text.includes("dataset"), "looks like the widget");
    });

    await t.step("the same ETag comes back gzipped when the client accepts gzip", async () => {
      const res = await fetch(`${s.url}/widget.js`, { headers: { "accept-encoding": "gzip" } });
      await res.arrayBuffer();
      assertEquals(res.status, 200);
      assertEquals(res.headers.get("etag"), etag);
      assertEquals(res.headers.get("vary"), "Accept-Encoding");
      assertOk(Number(res.headers.get("content-length")) < SIZE_BUDGET);
    });

    await t.step("If-None-Match with the ETag answers 304 without a body", async () => {
      const res = await fetch(`${s.url}/widget.js`, { headers: { "if-none-match": etag } });
      assertEquals(res.status, 304);
      assertEquals(await res.text(), "");
      assertEquals(res.headers.get("etag"), etag);
      const weak = await fetch(`${s.url}/widget.js`, { headers: { "if-none-match": `W/${etag}` } });
      await weak.body?.cancel();
      assertEquals(weak.status, 304);
      const other = await fetch(`${s.url}/widget.js`, { headers: { "if-none-match": '"nope"' } });
      await other.text();
      assertEquals(other.status, 200);
    });

    await t.step("HEAD /widget.js has the headers and no body", async () => {
      const res = await fetch(`${s.url}/widget.js`, { method: "HEAD" });
      assertEquals(res.status, 200);
      assertEquals(res.headers.get("etag"), etag);
      assertEquals(await res.text(), "");
    });

    await t.step("POST /widget.js is not a route", async () => {
      const res = await fetch(`${s.url}/widget.js`, { method: "POST" });
      await res.text();
      assertOk(res.status === 404 || res.status === 405, `status ${res.status}`);
    });

    await t.step("/demo embeds the demo bot with the paste-ready snippet", async () => {
      const res = await fetch(`${s.url}/demo`);
      const html = await res.text();
      assertEquals(res.status, 200);
      assertMatch(res.headers.get("content-type") ?? "", /^text\/html/);
      assertMatch(res.headers.get("content-security-policy") ?? "", /script-src 'self'/);
      assertOk(html.includes('<script src="/widget.js" data-key="demo-bot" defer></script>'));
      assertOk(
        html.includes("/widget.js&quot; data-key=&quot;demo-bot&quot; defer&gt;&lt;/script&gt;"),
        "snippet",
      );
    });

    await t.step(
      "/demo?key= embeds that bot; a key with markup falls back to the demo bot",
      async () => {
        const ok = await (await fetch(`${s.url}/demo?key=acme-helper`)).text();
        assertOk(ok.includes('data-key="acme-helper"'));
        const evil = encodeURIComponent('x"><script>alert(1)</script>');
        const html = await (await fetch(`${s.url}/demo?key=${evil}`)).text();
        assertOk(!html.includes("alert(1)"), "markup from the query must not reach the page");
        assertOk(html.includes('data-key="demo-bot"'));
      },
    );
  } finally {
    await s.stop();
  }
});
