/**
 * A scheduled sync runs once across instances: two servers on one PostgreSQL
 * database, both checking every second, both clocks moved past the source's
 * `next_sync_at` while the site answers slowly (the sync spans several of
 * their checks); the site sees one sync (one fetch of its start page) and
 * the next sync is due a day after it. The embedded database serves one
 * process, so this runs on PostgreSQL only.
 */
import { assertEquals } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer, type TestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { page, startLocalSite } from "../helpers/local_site.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { pollUntil } from "./poll.ts";

const owner: string = T.acme.owner.portal;
const base = "/api/portal/chatbots/acme-helper/knowledge";
const shared = Boolean(Deno.env.get("DATABASE_URL"));

interface SourceItem {
  id: number;
  status: string;
  next_sync_at: string | null;
  last_sync: { finished_at: string; changed: number } | null;
}

Deno.test({
  name: "a scheduled sync runs once across two instances",
  ignore: !shared,
  ...serverTestOptions,
  fn: async () => {
    const ai = startFakeAi();
    const site = startLocalSite({
      "/": { ...page("Home", ["Kiwis are in season."], ["/more"]), etag: "h1" },
      "/more": { ...page("More", ["Limes are sour."]), etag: "m1" },
    });
    const env = { AI_BASE_URL: ai.baseUrl, SITE_SYNC_CHECK_SECONDS: "1" };
    const a = await startTestServer({ seed: standardSeed(), env });
    let b: TestServer | null = null;
    try {
      b = await startTestServer({ databaseUrl: a.env.DATABASE_URL, env });
      const list = async () =>
        (await http(a.url, "GET", base, { token: owner })).body.data as SourceItem[];
      const created = await http(a.url, "POST", base, {
        token: owner,
        body: { type: "url", source_url: `${site.url}/` },
      });
      assertEquals(created.status, 201, created.text);
      const id = created.body.data.id as number;
      const first = await pollUntil(async () => {
        const s = (await list()).find((x) => x.id === id);
        return s?.status === "ready" && s.last_sync ? s : null;
      }, "the first crawl");
      const put = await http(b.url, "PUT", `${base}/${id}/schedule`, {
        token: owner,
        body: { sync_schedule: "daily" },
      });
      assertEquals(put.status, 200, put.text);
      site.routes["/more"] = { ...page("More", ["Limes are sour and green."]), etag: "m2" };
      const startHits = site.hitsOf("/");
      // A slow site: the sync spans several checks by both instances.
      site.delayMs = 700;
      const later = new Date(Date.now() + 25 * 3_600_000);
      a.deps.clock = () => later;
      b.deps.clock = () => later;
      const after = await pollUntil(
        async () => {
          const s = (await list()).find((x) => x.id === id);
          return s?.status === "ready" && s.last_sync!.finished_at > first.last_sync!.finished_at
            ? s
            : null;
        },
        "the scheduled sync",
        30_000,
      );
      // Both instances keep checking for a while: nothing starts a second sync.
      await new Promise((r) => setTimeout(r, 3_000));
      assertEquals(site.hitsOf("/") - startHits, 1);
      assertEquals(after.last_sync!.changed, 1);
      const [jobs] = await a.deps.sql<{ attempts: number }[]>`
        SELECT attempts FROM jobs WHERE dedupe_key = ${`index_source:${id}`}`;
      assertEquals(jobs!.attempts, 1);
      assertEquals(
        (await list()).find((x) => x.id === id)!.next_sync_at,
        new Date(later.getTime() + 86_400_000).toISOString(),
      );
    } finally {
      await b?.stop();
      await a.stop();
      await site.close();
      await ai.close();
    }
  },
});
