/**
 * Crawling and indexing throughput on a generated local site of 500 pages:
 * the crawler alone (fetch, robots, sitemap, HTML parsing), then the whole
 * pipeline through the portal API (job queue, crawl, chunking, full-text and
 * embeddings from the fake provider), then indexing a large text source.
 */
import { startTestServer } from "../tests/helpers/test_server.ts";
import { standardSeed, T } from "../tests/helpers/fixtures.ts";
import { http } from "../tests/helpers/http.ts";
import { startFakeAi } from "../tests/helpers/fake_ai.ts";
import { generatedSite, startLocalSite } from "../tests/helpers/local_site.ts";
import { crawlSite } from "../domain/crawl/crawl_site.ts";

const PAGES = 500;
const KNOWLEDGE = "/api/portal/chatbots/acme-helper/knowledge";

async function waitReady(
  url: string,
  id: number,
): Promise<{ chunk_count: number; pages_indexed: number }> {
  while (true) {
    const r = await http(url, "GET", KNOWLEDGE, { token: T.acme.owner.portal });
    const s = (r.body.data as {
      id: number;
      status: string;
      chunk_count: number;
      pages_indexed: number;
      error: string;
    }[])
      .find((x) => x.id === id)!;
    if (s.status === "ready") return s;
    if (s.status === "failed") throw new Error(`source failed: ${s.error}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function crawlOnly(): Promise<{ pages: number; seconds: number }> {
  const site = startLocalSite(generatedSite(PAGES));
  try {
    const t0 = performance.now();
    let pages = 0;
    await crawlSite(`${site.url}/`, {
      policy: { allowPrivate: true, allowHosts: [] },
      maxBytes: 2_000_000,
      timeoutMs: 15_000,
      maxPages: PAGES,
      maxDepth: 10,
      concurrency: 4,
    }, { onFound: () => {}, onPage: () => Promise.resolve(void pages++) });
    return { pages, seconds: (performance.now() - t0) / 1000 };
  } finally {
    await site.close();
  }
}

export async function run(): Promise<string> {
  const crawl = await crawlOnly();
  const ai = startFakeAi();
  const site = startLocalSite(generatedSite(PAGES));
  const s = await startTestServer({
    seed: standardSeed(),
    env: { AI_BASE_URL: ai.baseUrl, CRAWL_MAX_PAGES: String(PAGES), CRAWL_MAX_DEPTH: "10" },
  });
  try {
    let t0 = performance.now();
    const created = await http(s.url, "POST", KNOWLEDGE, {
      token: T.acme.owner.portal,
      body: { type: "url", source_url: `${site.url}/` },
    });
    const urlSource = await waitReady(s.url, created.body.data.id);
    const pipelineSeconds = (performance.now() - t0) / 1000;

    const para = "Every setting of the device is described in this manual in great detail. ";
    const content = Array.from({ length: 40 }, (_, i) => `# Chapter ${i}\n` + para.repeat(300))
      .join("\n\n").slice(0, 1_000_000);
    t0 = performance.now();
    const text = await http(s.url, "POST", KNOWLEDGE, {
      token: T.acme.owner.portal,
      body: { type: "text", title: "Manual", content },
    });
    const textSource = await waitReady(s.url, text.body.data.id);
    const textSeconds = (performance.now() - t0) / 1000;

    const mode = s.deps.db.embedded ? "embedded PGlite" : "PostgreSQL";
    const f = (n: number) => n.toFixed(1);
    return [
      "## Crawling and indexing",
      "",
      `Generated local site of ${PAGES} pages (about 2 KB of text each, linked and listed in`,
      `sitemap.xml), served on 127.0.0.1 without delay; ${mode}; fake OpenAI-compatible provider`,
      "for embeddings; crawl concurrency 4, one indexing job.",
      "",
      "| Measure | Pages | Chunks | Seconds | Pages/s | Chunks/s |",
      "|---|---|---|---|---|---|",
      `| Crawler alone (fetch, robots, sitemap, parse) | ${crawl.pages} | – | ${
        f(crawl.seconds)
      } | ${f(crawl.pages / crawl.seconds)} | – |`,
      `| Portal url source, create → ready (crawl + index) | ${urlSource.pages_indexed} | ${urlSource.chunk_count} | ${
        f(pipelineSeconds)
      } | ${f(urlSource.pages_indexed / pipelineSeconds)} | ${
        f(urlSource.chunk_count / pipelineSeconds)
      } |`,
      `| Portal text source of 1,000,000 characters, create → ready | – | ${textSource.chunk_count} | ${
        f(textSeconds)
      } | – | ${f(textSource.chunk_count / textSeconds)} |`,
    ].join("\n");
  } finally {
    await s.stop();
    await site.close();
    await ai.close();
  }
}

if (import.meta.main) console.log(await run());
