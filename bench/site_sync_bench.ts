/**
 * Keeping a website in sync: a generated local site of 500 pages with ETags
 * is crawled once, then synced with 5 pages changed, in rounds. Baselines
 * from the same run: the first crawl (every page fetched and embedded) and
 * the same sync with the site sending no validators (every page fetched in
 * full; unchanged text still not re-embedded, by its hash).
 */
import { startTestServer } from "../tests/helpers/test_server.ts";
import { standardSeed, T } from "../tests/helpers/fixtures.ts";
import { http } from "../tests/helpers/http.ts";
import { startFakeAi } from "../tests/helpers/fake_ai.ts";
import { generatedSite, startLocalSite } from "../tests/helpers/local_site.ts";

const PAGES = 500;
const CHANGED = 5;
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? "3");
const KNOWLEDGE = "/api/portal/chatbots/acme-helper/knowledge";

interface Source {
  id: number;
  status: string;
  error: string | null;
  pages_indexed: number;
  last_sync: {
    added: number;
    changed: number;
    removed: number;
    failed: number;
    finished_at: string;
  } | null;
}

async function settled(url: string, id: number, after: string): Promise<Source> {
  while (true) {
    const r = await http(url, "GET", KNOWLEDGE, { token: T.acme.owner.portal });
    const s = (r.body.data as Source[]).find((x) => x.id === id)!;
    if (s.status === "failed") throw new Error(`source failed: ${s.error}`);
    if (s.status === "ready" && s.last_sync && s.last_sync.finished_at > after) return s;
    await new Promise((r) => setTimeout(r, 25));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(): Promise<string> {
  const ai = startFakeAi();
  const site = startLocalSite(generatedSite(PAGES));
  for (const [path, route] of Object.entries(site.routes)) {
    if (path.startsWith("/p/") || path === "/") route.etag = `"v0${path}"`;
  }
  const s = await startTestServer({
    seed: standardSeed(),
    env: { AI_BASE_URL: ai.baseUrl, CRAWL_MAX_PAGES: String(PAGES), CRAWL_MAX_DEPTH: "10" },
  });
  let version = 0;
  /** Edit CHANGED pages (new text, new ETag); with `etags` false every page drops its ETag. */
  const change = (etags: boolean) => {
    version++;
    for (let k = 0; k < CHANGED; k++) {
      const path = `/p/${1 + ((version * CHANGED + k) % (PAGES - 1))}`;
      const old = site.routes[path]!;
      const body = String(old.body).replace(
        "</main>",
        `<p>Revision ${version} of ${path} adds a note about gift cards.</p></main>`,
      );
      site.routes[path] = { ...old, body, etag: `"v${version}${path}"` };
    }
    for (const route of Object.values(site.routes)) if (!etags) delete route.etag;
  };
  try {
    const t0 = performance.now();
    const created = await http(s.url, "POST", KNOWLEDGE, {
      token: T.acme.owner.portal,
      body: { type: "url", source_url: `${site.url}/` },
    });
    const id = created.body.data.id as number;
    let last = await settled(s.url, id, "");
    const firstSeconds = (performance.now() - t0) / 1000;
    const firstTexts = ai.embeddedTexts.length;

    const syncOnce = async (etags: boolean) => {
      change(etags);
      ai.embeddedTexts.length = 0;
      site.notModified.length = 0;
      const start = performance.now();
      const r = await http(s.url, "POST", `${KNOWLEDGE}/${id}/sync`, {
        token: T.acme.owner.portal,
        body: {},
      });
      if (r.status !== 200) throw new Error(`sync: ${r.status} ${r.text}`);
      last = await settled(s.url, id, last.last_sync!.finished_at);
      return {
        seconds: (performance.now() - start) / 1000,
        texts: ai.embeddedTexts.length,
        notModified: site.notModified.length,
        summary: last.last_sync!,
      };
    };
    type Run = Awaited<ReturnType<typeof syncOnce>>;
    const conditional: Run[] = [];
    for (let i = 0; i < ROUNDS; i++) conditional.push(await syncOnce(true));
    const full: Run[] = [];
    for (let i = 0; i < ROUNDS; i++) full.push(await syncOnce(false));

    const mode = s.deps.db.embedded ? "embedded PGlite" : "PostgreSQL";
    const f = (n: number) => n.toFixed(2);
    const row = (name: string, runs: Run[]) =>
      `| ${name} | ${runs.map((r) => f(r.seconds)).join(", ")} (median ${
        f(median(runs.map((r) => r.seconds)))
      }) | ${runs.map((r) => r.texts).join(", ")} | ${
        runs.map((r) => r.notModified).join(", ")
      } | ${JSON.stringify((({ finished_at: _, ...c }) => c)(runs.at(-1)!.summary))} |`;
    return [
      "## Keeping a website in sync",
      "",
      `Generated local site of ${PAGES} pages with ETags, ${CHANGED} pages edited before each`,
      `sync; ${mode}; fake OpenAI-compatible provider; ${ROUNDS} rounds each.`,
      "",
      "| Run | Seconds | Texts embedded | 304 answers | Last summary |",
      "|---|---|---|---|---|",
      `| First crawl, create → ready (${last.pages_indexed} pages) | ${
        f(firstSeconds)
      } | ${firstTexts} | – | – |`,
      row("Sync now, 5 changed, conditional GETs", conditional),
      row("Sync now, 5 changed, site sends no ETag (full fetches)", full),
    ].join("\n");
  } finally {
    await s.stop();
    await site.close();
    await ai.close();
  }
}

if (import.meta.main) console.log(await run());
