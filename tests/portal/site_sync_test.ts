/**
 * Websites that stay in sync, over the portal: a site served here changes
 * between two syncs (a page edited, one added, one gone with 410, one dropped
 * from the sitemap, the rest unchanged with the same ETag or Last-Modified) and the source's
 * `last_sync` says exactly that, while only the edited and added pages reach
 * the AI stub's embeddings endpoint. Sync now is 409 while a sync runs and 422
 * on a text source; the schedule is validated (422) and a daily sync starts
 * when the server's injectable clock passes `next_sync_at` (a page answering
 * 503 then counts as failed and keeps its chunks).
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { page, type Routes, startLocalSite } from "../helpers/local_site.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { pollUntil } from "./poll.ts";

const owner: string = T.acme.owner.portal;
const base = "/api/portal/chatbots/acme-helper/knowledge";

interface LastSync {
  added: number;
  changed: number;
  removed: number;
  failed: number;
  finished_at: string;
}
interface SourceItem {
  id: number;
  status: string;
  chunk_count: number;
  error: string | null;
  sync_schedule: string | null;
  next_sync_at: string | null;
  last_sync: LastSync | null;
}

const sitemap = (origin: string, paths: string[]) => ({
  contentType: "application/xml",
  body: `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${
    paths.map((p) => `<url><loc>${origin}${p}</loc></url>`).join("")
  }</urlset>`,
});
const tagged = (etag: string, title: string, text: string, links: string[] = []) => ({
  ...page(title, [text], links),
  etag,
});

const ai = startFakeAi();
const site = startLocalSite((origin): Routes => ({
  "/robots.txt": {
    contentType: "text/plain",
    body: `User-agent: *\nAllow: /\n\nSitemap: ${origin}/sitemap.xml\n`,
  },
  "/sitemap.xml": sitemap(origin, ["/", "/a", "/b", "/d"]),
  "/": tagged("h1", "Home", "Welcome to the orchard shop.", ["/a", "/b", "/f", "/g", "/h"]),
  "/a": tagged("a1", "Apricots", "Apricots ripen in June."),
  "/b": tagged("b1", "Bananas", "Bananas ship green."),
  "/d": tagged("d1", "Dates", "Dates keep for months."),
  // No ETag: a full fetch each time, its unchanged text is still not re-embedded.
  "/f": page("Figs", ["Figs bruise easily."]),
  "/g": tagged("g1", "Grapes", "Grapes come seedless."),
  // Last-Modified only: fetched with If-Modified-Since.
  "/h": {
    ...page("Hazelnuts", ["Hazelnuts are roasted in October."]),
    lastModified: "Wed, 21 Oct 2026 07:28:00 GMT",
  },
}));
const s = await startTestServer({
  seed: standardSeed(),
  env: { AI_BASE_URL: ai.baseUrl, SITE_SYNC_CHECK_SECONDS: "1" },
});

async function sourceOf(id: number): Promise<SourceItem> {
  const r = await http(s.url, "GET", base, { token: owner });
  assertEquals(r.status, 200, r.text);
  return (r.body.data as SourceItem[]).find((x) => x.id === id)!;
}

/** Waits until the source is settled with a last sync finished after `after`. */
async function synced(id: number, after = ""): Promise<SourceItem> {
  const found = await pollUntil(
    async () => {
      const x = await sourceOf(id);
      const settled = x.status === "ready" || x.status === "failed";
      return settled && x.last_sync && x.last_sync.finished_at > after ? x : null;
    },
    `source ${id} to finish a sync`,
    30_000,
  );
  assertEquals(found.status, "ready", found.error ?? "");
  return found;
}

const pagePaths = async (id: number) =>
  (await s.deps.sql<{ source_url: string }[]>`
    SELECT source_url FROM knowledge_sources WHERE parent_id = ${id}`)
    .map((p) => new URL(p.source_url).pathname).sort();

/** Chunk ids by page path: a page re-chunked gets new ones. */
async function chunkIds(id: number): Promise<Record<string, string>> {
  const rows = await s.deps.sql<{ url: string; ids: string }[]>`
    SELECT p.source_url AS url, string_agg(c.id::text, ',' ORDER BY c.id) AS ids
      FROM knowledge_sources p JOIN knowledge_chunks c ON c.source_id = p.id
     WHERE p.parent_id = ${id} GROUP BY p.source_url`;
  return Object.fromEntries(rows.map((r) => [new URL(r.url).pathname, r.ids]));
}

/** Embeddings exist only where pgvector does (embedded PGlite; PostgreSQL with the extension). */
const embeds = s.deps.db.vector;

const counts = (x: SourceItem) => {
  const { finished_at: _, ...rest } = x.last_sync!;
  return rest;
};

Deno.test("a website source stays in sync", serverTestOptions, async (t) => {
  let id = 0;
  let first: SourceItem;
  const realClock = s.deps.clock;
  try {
    await t.step("the first crawl counts every page as added; no schedule yet", async () => {
      const r = await http(s.url, "POST", base, {
        token: owner,
        body: { type: "url", source_url: `${site.url}/` },
      });
      assertEquals(r.status, 201, r.text);
      assertEquals([r.body.data.sync_schedule, r.body.data.next_sync_at], ["off", null]);
      id = r.body.data.id;
      first = await synced(id);
      assertEquals(counts(first), { added: 7, changed: 0, removed: 0, failed: 0 });
      assertEquals(await pagePaths(id), ["/", "/a", "/b", "/d", "/f", "/g", "/h"]);
      if (embeds) assertOk(ai.embeddedTexts.length >= 7, "every page was embedded once");
    });

    await t.step("a changed site: exactly its changes, only they re-embedded", async () => {
      const routes = site.routes;
      routes["/a"] = tagged("a2", "Apricots", "Apricots ripen in June, avocados in May.");
      routes["/c"] = tagged("c1", "Cherries", "Cherries arrive in July.");
      routes["/b"] = { status: 410, body: "gone" };
      routes["/sitemap.xml"] = sitemap(site.url, ["/", "/a", "/b", "/c"]); // /d dropped
      ai.embeddedTexts.length = 0;
      site.notModified.length = 0;
      const before = await chunkIds(id);
      const r = await http(s.url, "POST", `${base}/${id}/sync`, { token: owner, body: {} });
      assertEquals(r.status, 200, r.text);
      assertEquals(r.body.data.status, "pending");
      const after = await synced(id, first.last_sync!.finished_at);
      assertEquals(counts(after), { added: 1, changed: 1, removed: 2, failed: 0 });
      assertEquals(await pagePaths(id), ["/", "/a", "/c", "/f", "/g", "/h"]);
      // Unchanged pages with an ETag or a Last-Modified were answered 304.
      assertEquals(site.notModified.sort(), ["/", "/g", "/h"]);
      // Unchanged pages keep their very chunks; the edited one has new ones.
      const now = await chunkIds(id);
      for (const path of ["/", "/f", "/g", "/h"]) assertEquals(now[path], before[path], path);
      assertOk(now["/a"] && now["/a"] !== before["/a"]);
      if (embeds) {
        assertOk(ai.embeddedTexts.length >= 2, JSON.stringify(ai.embeddedTexts));
        for (const text of ai.embeddedTexts) {
          assertOk(/avocados|Cherries arrive/.test(text), `re-embedded unchanged text: ${text}`);
        }
        assertOk(ai.embeddedTexts.some((t) => t.includes("avocados")));
        assertOk(ai.embeddedTexts.some((t) => t.includes("Cherries arrive")));
      }
      const [sum] = await s.deps.sql<{ n: number }[]>`
        SELECT COALESCE(sum(chunk_count), 0)::int AS n FROM knowledge_sources
         WHERE parent_id = ${id}`;
      assertEquals(after.chunk_count, sum!.n);
      first = after;
    });

    await t.step(
      "Sync now is 409 while a sync runs, and an unchanged site adds nothing",
      async () => {
        site.delayMs = 300;
        ai.embeddedTexts.length = 0;
        const before = await chunkIds(id);
        const r = await http(s.url, "POST", `${base}/${id}/sync`, { token: owner, body: {} });
        assertEquals(r.status, 200, r.text);
        const again = await http(s.url, "POST", `${base}/${id}/sync`, { token: owner, body: {} });
        assertEquals(again.status, 409, again.text);
        site.delayMs = 0;
        const after = await synced(id, first.last_sync!.finished_at);
        assertEquals(counts(after), { added: 0, changed: 0, removed: 0, failed: 0 });
        assertEquals(ai.embeddedTexts, []);
        assertEquals(await chunkIds(id), before);
        first = after;
      },
    );

    await t.step("a text source has no sync (422) nor schedule (422); bad values 422", async () => {
      const text = await http(s.url, "POST", base, {
        token: owner,
        body: { type: "text", content: "Plain text." },
      });
      assertEquals(text.status, 201, text.text);
      assertEquals(text.body.data.sync_schedule, null);
      const tid = text.body.data.id;
      const sync = await http(s.url, "POST", `${base}/${tid}/sync`, { token: owner, body: {} });
      assertEquals([sync.status, Object.keys(sync.body.errors ?? {})], [422, ["source"]]);
      const sched = await http(s.url, "PUT", `${base}/${tid}/schedule`, {
        token: owner,
        body: { sync_schedule: "daily" },
      });
      assertEquals([sched.status, Object.keys(sched.body.errors ?? {})], [422, ["sync_schedule"]]);
      for (const bad of ["hourly", "", 1, null]) {
        const r = await http(s.url, "PUT", `${base}/${id}/schedule`, {
          token: owner,
          body: { sync_schedule: bad },
        });
        assertEquals([r.status, Object.keys(r.body.errors ?? {})], [422, ["sync_schedule"]]);
      }
      const missing = await http(s.url, "POST", `${base}/999999/sync`, { token: owner, body: {} });
      assertEquals(missing.status, 404);
    });

    await t.step("daily: the sync starts when the clock passes next_sync_at", async () => {
      const r = await http(s.url, "PUT", `${base}/${id}/schedule`, {
        token: owner,
        body: { sync_schedule: "daily" },
      });
      assertEquals(r.status, 200, r.text);
      assertEquals(r.body.data.sync_schedule, "daily");
      const due = Date.parse(r.body.data.next_sync_at);
      assertOk(Math.abs(due - (realClock().getTime() + 86_400_000)) < 60_000, r.text);
      site.routes["/g"] = tagged("g2", "Grapes", "Grapes come seedless and with seeds.");
      // A server error is a failure that may pass: the page keeps its chunks.
      site.routes["/h"] = { status: 503, body: "busy" };
      const before = await chunkIds(id);
      // Not due yet: two scheduler ticks change nothing.
      await new Promise((r) => setTimeout(r, 2_500));
      assertEquals((await sourceOf(id)).last_sync, first.last_sync);
      const later = new Date(realClock().getTime() + 25 * 3_600_000);
      s.deps.clock = () => later;
      const after = await synced(id, first.last_sync!.finished_at);
      assertEquals(counts(after), { added: 0, changed: 1, removed: 0, failed: 1 });
      assertEquals(after.last_sync!.finished_at, later.toISOString());
      assertEquals((await chunkIds(id))["/h"], before["/h"]);
      assertEquals(after.next_sync_at, new Date(later.getTime() + 86_400_000).toISOString());
    });

    await t.step("off clears next_sync_at", async () => {
      const r = await http(s.url, "PUT", `${base}/${id}/schedule`, {
        token: owner,
        body: { sync_schedule: "off" },
      });
      assertEquals([r.status, r.body.data.sync_schedule, r.body.data.next_sync_at], [
        200,
        "off",
        null,
      ]);
    });
  } finally {
    s.deps.clock = realClock;
    await s.stop();
    await site.close();
    await ai.close();
  }
});
