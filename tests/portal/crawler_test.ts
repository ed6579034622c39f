/**
 * The website crawler against a small local site: links and sitemap within
 * the depth budget, robots.txt, a same-site redirect, a binary file, a page
 * loop, pages kept as children with their URL for citations; and, with
 * private addresses not allowed, a redirect to a loopback address refused.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { page, startLocalSite } from "../helpers/local_site.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { pollUntil } from "./poll.ts";

const owner: string = T.acme.owner.portal;
const base = "/api/portal/chatbots/acme-helper/knowledge";

interface SourceItem {
  id: number;
  status: string;
  chunk_count: number;
  error: string | null;
  pages_found: number | null;
  pages_indexed: number | null;
}

async function waitSettled(url: string, id: number, timeoutMs = 30_000): Promise<SourceItem> {
  return await pollUntil(
    async () => {
      const r = await http(url, "GET", base, { token: owner });
      const found = (r.body.data as SourceItem[]).find((x) => x.id === id);
      return found && (found.status === "ready" || found.status === "failed") ? found : null;
    },
    `source ${id} to settle`,
    timeoutMs,
  );
}

const ai = startFakeAi();
const site = startLocalSite((origin) => ({
  "/robots.txt": {
    contentType: "text/plain",
    body: `User-agent: *\nDisallow: /private/\n\nSitemap: ${origin}/sitemap.xml\n`,
  },
  "/sitemap.xml": {
    contentType: "application/xml",
    body: `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>${origin}/orphan</loc></url>
  <url><loc>${origin}/about</loc></url>
  <url><loc>https://elsewhere.invalid/page</loc></url>
</urlset>`,
  },
  "/": page("Home", ["Welcome to the Widgetco help centre."], [
    "/about",
    "/docs/one",
    "/private/secret",
    "/manual.bin",
    "/moved",
    "/loop-a",
    "/about#team",
    "https://elsewhere.invalid/external",
    "/missing",
    "/huge",
    "/sneaky",
  ]),
  "/sneaky": { status: 302, location: "/private/hidden" },
  "/private/hidden": page("Hidden", ["Reached only by a redirect into a disallowed path."]),
  "/huge": page("Huge", ["An oversized page about walruses. ".repeat(70_000)]),
  "/about": page("About", ["Widgetco builds zebra-striped widgets since 1999."], ["/"]),
  "/orphan": page("Orphan", ["Only the sitemap knows the quokka pricing page."]),
  "/docs/one": page("Docs one", ["Depth one explains installation."], ["/docs/two"]),
  "/docs/two": page("Docs two", ["Depth two explains configuration."], ["/docs/three"]),
  "/docs/three": page("Docs three", ["Depth three explains upgrades."], ["/docs/four"]),
  "/docs/four": page("Docs four", ["Depth four is beyond the budget."]),
  "/private/secret": page("Secret", ["The vault code is 0000."]),
  "/manual.bin": {
    contentType: "application/octet-stream",
    body: new Uint8Array([0, 1, 2, 3, 255, 254, 0, 0]),
  },
  "/moved": { status: 301, location: "/landing" },
  "/landing": page("Landing", ["Reached through a permanent redirect about flamingos."]),
  "/loop-a": page("Loop A", ["Loop page A talks about apples."], ["/loop-b", "/loop-a"]),
  "/loop-b": page("Loop B", ["Loop page B talks about bananas."], ["/loop-a", "/loop-b"]),
}));
const s = await startTestServer({ seed: standardSeed(), env: { AI_BASE_URL: ai.baseUrl } });

Deno.test("crawling a website", serverTestOptions, async (t) => {
  let id = 0;
  let result: SourceItem;
  await t.step("a url source is created pending and crawled to ready", async () => {
    const r = await http(s.url, "POST", base, {
      token: owner,
      body: { type: "url", source_url: `${site.url}/` },
    });
    assertEquals(r.status, 201);
    assertEquals(r.body.data.status, "pending");
    assertEquals(r.body.data.source_url, `${site.url}/`);
    assertEquals(r.body.data.title, `127.0.0.1:${site.port}`);
    id = r.body.data.id;
    result = await waitSettled(s.url, id);
    assertEquals(result.status, "ready", result.error ?? "");
  });

  const pages = async () =>
    (await s.deps.sql<{ source_url: string; chunk_count: number; type: string }[]>`
      SELECT source_url, chunk_count, type FROM knowledge_sources WHERE parent_id = ${id}
      ORDER BY source_url`).map((p) => ({ ...p, path: new URL(p.source_url).pathname }));

  await t.step(
    "same-site links and sitemap pages are indexed within the depth budget",
    async () => {
      const paths = (await pages()).map((p) => p.path).sort();
      assertEquals(paths, [
        "/",
        "/about",
        "/docs/one",
        "/docs/three",
        "/docs/two",
        "/landing",
        "/loop-a",
        "/loop-b",
        "/orphan",
      ]);
      assertEquals(site.hitsOf("/docs/four"), 0); // depth 4 > CRAWL_MAX_DEPTH 3
    },
  );

  await t.step("robots.txt is honoured", () => {
    assertEquals(site.hitsOf("/robots.txt"), 1);
    assertEquals(site.hitsOf("/private/secret"), 0);
    // A redirect into a disallowed path is not followed either.
    assertEquals(site.hitsOf("/sneaky"), 1);
    assertEquals(site.hitsOf("/private/hidden"), 0);
  });

  await t.step("a binary file is fetched at most once and never indexed", async () => {
    assertOk(site.hitsOf("/manual.bin") <= 1);
    assertOk(!(await pages()).some((p) => p.path === "/manual.bin"));
  });

  await t.step("an oversized page is not indexed", async () => {
    assertOk(!(await pages()).some((p) => p.path === "/huge"));
  });

  await t.step("a page loop visits each page once", () => {
    assertEquals(site.hitsOf("/loop-a"), 1);
    assertEquals(site.hitsOf("/loop-b"), 1);
    assertEquals(site.hitsOf("/"), 1);
    assertEquals(site.hitsOf("/about"), 1);
  });

  await t.step("a redirected page is kept under its final URL", async () => {
    assertEquals(site.hitsOf("/moved"), 1);
    assertOk((await pages()).some((p) => p.path === "/landing"));
  });

  await t.step(
    "the source's chunk count is the sum over its pages, and progress is shown",
    async () => {
      const all = await pages();
      assertEquals(result.chunk_count, all.reduce((n, p) => n + p.chunk_count, 0));
      assertOk(result.chunk_count >= all.length);
      assertEquals(result.pages_indexed, all.length);
      assertOk(result.pages_found! >= all.length);
      assertOk(all.every((p) => p.type === "page"));
    },
  );

  await t.step(
    "chunks carry their page URL for citations, and nav, footer and scripts are not indexed",
    async () => {
      const rows = await s.deps.sql<{ url: string; content: string }[]>`
      SELECT c.url, c.content FROM knowledge_chunks c
        JOIN knowledge_sources k ON k.id = c.source_id WHERE k.parent_id = ${id}`;
      const about = rows.find((r) => r.content.includes("zebra-striped"));
      assertEquals(about?.url, `${site.url}/about`);
      assertOk(
        !rows.some((r) => r.content.includes("Footer text") || r.content.includes("tracking")),
      );
    },
  );

  await t.step("only the url source is listed; its pages are not", async () => {
    const r = await http(s.url, "GET", base, { token: owner });
    const types = (r.body.data as { type: string }[]).map((x) => x.type);
    assertOk(!types.includes("page"));
  });

  await t.step(
    "a start page that is missing or not HTML fails the source with the reason",
    async () => {
      for (const [path, reason] of [["/missing", /404/], ["/manual.bin", /not a page/]] as const) {
        const r = await http(s.url, "POST", base, {
          token: owner,
          body: { type: "url", source_url: `${site.url}${path}` },
        });
        const done = await waitSettled(s.url, r.body.data.id);
        assertEquals(done.status, "failed");
        assertOk(reason.test(done.error ?? ""), done.error ?? "");
      }
    },
  );

  await t.step("deleting the url source removes its pages and all their chunks", async () => {
    const r = await http(s.url, "DELETE", `${base}/${id}`, { token: owner });
    assertEquals(r.status, 200);
    assertEquals((await pages()).length, 0);
    const [left] = await s.deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM knowledge_chunks WHERE url LIKE ${site.url + "%"}`;
    assertEquals(left!.n, 0);
  });
});

Deno.test("private addresses are refused when not allowed", serverTestOptions, async (t) => {
  // The secret service stands for an internal address (metadata, admin panel).
  const secret = startLocalSite({ "/latest/meta-data": page("Metadata", ["iam credentials"]) });
  const entry = startLocalSite({
    "/": page("Entry", ["Public entry page about parrots."], ["/go-internal", "/public"]),
    "/public": page("Public", ["Another public page about pelicans."]),
    "/go-internal": { status: 302, location: `${secret.url}/latest/meta-data` },
  });
  // Only the entry site's exact host:port is allowed; the secret one is loopback and refused.
  const strict = await startTestServer({
    seed: standardSeed(),
    env: {
      AI_BASE_URL: ai.baseUrl,
      CRAWL_ALLOW_PRIVATE: "0",
      CRAWL_ALLOW_HOSTS: `127.0.0.1:${entry.port}`,
    },
  });
  try {
    await t.step("a private or local address is refused at creation", async () => {
      for (
        const url of [
          "http://169.254.169.254/latest/meta-data",
          "http://localhost:8080/",
          "http://[::1]/",
          "http://10.0.0.8/",
          `http://127.0.0.1:${secret.port}/`,
        ]
      ) {
        const r = await http(strict.url, "POST", base, {
          token: owner,
          body: { type: "url", source_url: url },
        });
        assertEquals(r.status, 422, url);
        assertOk(r.body.errors.source_url, url);
      }
    });

    await t.step("a redirect to a private address during the crawl is not followed", async () => {
      const r = await http(strict.url, "POST", base, {
        token: owner,
        body: { type: "url", source_url: `${entry.url}/` },
      });
      assertEquals(r.status, 201);
      const done = await waitSettled(strict.url, r.body.data.id);
      assertEquals(done.status, "ready");
      assertEquals(done.pages_indexed, 2);
      assertEquals(entry.hitsOf("/go-internal"), 1);
      assertEquals(secret.hitsOf("/latest/meta-data"), 0);
    });

    await t.step("a start URL redirecting to a private address fails with the reason", async () => {
      const r = await http(strict.url, "POST", base, {
        token: owner,
        body: { type: "url", source_url: `${entry.url}/go-internal` },
      });
      assertEquals(r.status, 201);
      const done = await waitSettled(strict.url, r.body.data.id);
      assertEquals(done.status, "failed");
      assertOk(/refused/i.test(done.error ?? ""), done.error ?? "");
      assertEquals(done.chunk_count, 0);
      assertEquals(secret.hitsOf("/latest/meta-data"), 0);
    });
  } finally {
    await strict.stop();
    await entry.close();
    await secret.close();
  }
});

Deno.test("stop the crawler test servers", serverTestOptions, async () => {
  await s.stop();
  await site.close();
  await ai.close();
});
