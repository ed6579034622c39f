/**
 * Durable indexing: a crawl interrupted by a shutdown resumes on the next
 * start without indexing any page twice; a job held by a process that died
 * is claimed again once its lease runs out; two instances on one database
 * never run the same job twice.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import {
  createTestDatabase,
  serverTestOptions,
  startTestServer,
  type TestServer,
} from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { generatedSite, startLocalSite } from "../helpers/local_site.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { pollUntil } from "./poll.ts";

const owner: string = T.acme.owner.portal;
const base = "/api/portal/chatbots/acme-helper/knowledge";

interface SourceItem {
  id: number;
  status: string;
  chunk_count: number;
  pages_found: number | null;
  pages_indexed: number | null;
  error: string | null;
}

async function source(s: TestServer, id: number): Promise<SourceItem | undefined> {
  const r = await http(s.url, "GET", base, { token: owner });
  return (r.body.data as SourceItem[]).find((x) => x.id === id);
}

async function createUrl(s: TestServer, url: string): Promise<number> {
  const r = await http(s.url, "POST", base, {
    token: owner,
    body: { type: "url", source_url: url },
  });
  assertEquals(r.status, 201);
  return r.body.data.id;
}

/** Every page of the source once, and each page's chunks exactly its chunk_count. */
async function assertIndexedOnce(s: TestServer, id: number, pages: number) {
  const rows = await s.deps.sql<
    { id: number; source_url: string; chunk_count: number; n: number }[]
  >`
    SELECT k.id, k.source_url, k.chunk_count,
           (SELECT count(*)::int FROM knowledge_chunks c WHERE c.source_id = k.id) AS n
      FROM knowledge_sources k WHERE k.parent_id = ${id}`;
  assertEquals(rows.length, pages);
  assertEquals(new Set(rows.map((r) => r.source_url)).size, pages);
  for (const r of rows) assertEquals(r.n, r.chunk_count, r.source_url);
  const done = (await source(s, id))!;
  assertEquals(done.status, "ready");
  assertEquals(done.pages_indexed, pages);
  assertEquals(done.chunk_count, rows.reduce((n, r) => n + r.chunk_count, 0));
  return rows;
}

const PAGES = 40;

Deno.test("indexing survives restarts", serverTestOptions, async (t) => {
  const ai = startFakeAi();
  const siteA = startLocalSite(generatedSite(PAGES, 2), { delayMs: 120 });
  const siteB = startLocalSite(generatedSite(PAGES, 2), { delayMs: 120 });
  const db = await createTestDatabase();
  const dataDir = await Deno.makeTempDir({ prefix: "parley-restart-" });
  const opts = { dataDir, databaseUrl: db?.url, env: { AI_BASE_URL: ai.baseUrl } };
  let first: TestServer | null = await startTestServer({ ...opts, seed: standardSeed() });
  let second: TestServer | null = null;
  let third: TestServer | null = null;
  try {
    const id1 = await createUrl(first, `${siteA.url}/`);
    let before: number[] = [];
    await t.step("a shutdown in the middle of a crawl hands the job back", async () => {
      await pollUntil(
        async () => ((await source(first!, id1))?.pages_indexed ?? 0) >= 4,
        "progress",
      );
      const mid = (await source(first!, id1))!;
      assertEquals(mid.status, "processing");
      assertOk(mid.pages_found! > mid.pages_indexed!, "progress visible while crawling");
      await first!.stop();
      first = null;
    });

    second = await startTestServer(opts);
    await t.step(
      "the next start resumes it: every page indexed once, earlier pages kept",
      async () => {
        before = (await second!.deps.sql<{ id: number }[]>`
        SELECT id FROM knowledge_sources WHERE parent_id = ${id1} AND status = 'ready'`)
          .map((r) => r.id);
        assertOk(before.length >= 4);
        await pollUntil(
          async () => (await source(second!, id1))?.status === "ready",
          "resume",
          60_000,
        );
        const rows = await assertIndexedOnce(second!, id1, PAGES);
        const now = new Set(rows.map((r) => r.id));
        assertOk(
          before.every((pid) => now.has(pid)),
          "pages indexed before the restart are reused",
        );
      },
    );

    const id2 = await createUrl(second, `${siteB.url}/`);
    await t.step(
      "a job held by a process that died is claimed again when its lease expires",
      async () => {
        await pollUntil(
          async () => ((await source(second!, id2))?.pages_indexed ?? 0) >= 4,
          "progress",
        );
        // What a crashed process leaves: the job running under its name, lease not yet expired.
        await second!.deps.sql`
        UPDATE jobs SET locked_by = 'crashed-process', locked_until = now() + interval '2 seconds'
         WHERE dedupe_key = ${`index_source:${id2}`}`;
        await second!.stop(); // this instance no longer holds the job, so it hands nothing back
        second = null;
        third = await startTestServer(opts);
        await pollUntil(
          async () => (await source(third!, id2))?.status === "ready",
          "reclaim",
          60_000,
        );
        await assertIndexedOnce(third!, id2, PAGES);
        const [job] = await third!.deps.sql<{ status: string; locked_by: string | null }[]>`
        SELECT status, locked_by FROM jobs WHERE dedupe_key = ${`index_source:${id2}`}`;
        assertEquals(job, { status: "done", locked_by: null });
      },
    );
  } finally {
    for (const s of [first, second, third]) await s?.stop();
    await db?.drop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    await siteA.close();
    await siteB.close();
    await ai.close();
  }
});

Deno.test({
  name: "two instances on one database never index the same source twice",
  ...serverTestOptions,
  ignore: !Deno.env.get("DATABASE_URL"), // embedded PGlite is one process's database
  fn: async () => {
    const ai = startFakeAi();
    const sites = Array.from(
      { length: 6 },
      () => startLocalSite(generatedSite(8, 1), { delayMs: 30 }),
    );
    const db = (await createTestDatabase())!;
    const env = { AI_BASE_URL: ai.baseUrl, WORKER_CONCURRENCY: "3" };
    const a = await startTestServer({ databaseUrl: db.url, seed: standardSeed(), env });
    const b = await startTestServer({ databaseUrl: db.url, env });
    try {
      const ids: number[] = [];
      for (const [i, site] of sites.entries()) {
        ids.push(await createUrl(i % 2 ? a : b, `${site.url}/`));
      }
      await pollUntil(
        async () => {
          const r = await http(a.url, "GET", base, { token: owner });
          const items = r.body.data as SourceItem[];
          return ids.every((id) => items.find((x) => x.id === id)?.status === "ready");
        },
        "all sources ready",
        60_000,
      );
      for (const [i, site] of sites.entries()) {
        assertEquals(site.hitsOf("/"), 1, `site ${i} start page fetched once`);
        assertEquals(site.hitsOf("/robots.txt"), 1, `site ${i} crawled once`);
        await assertIndexedOnce(a, ids[i]!, 8);
      }
      const jobs = await a.deps.sql<{ attempts: number }[]>`
        SELECT attempts FROM jobs WHERE kind = 'index_source' AND dedupe_key = ANY(${
        ids.map((id) => `index_source:${id}`)
      })`;
      assertOk(jobs.every((j) => j.attempts === 1));
    } finally {
      await b.stop();
      await a.stop();
      await db.drop();
      for (const site of sites) await site.close();
      await ai.close();
    }
  },
});
