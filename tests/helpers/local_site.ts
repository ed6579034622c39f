/**
 * A small website served on 127.0.0.1 for crawler tests and the crawl
 * benchmark: fixed routes (pages, redirects, binary files, robots.txt,
 * sitemap.xml), an optional per-response delay, and a hit count per path so
 * tests can prove what the crawler did and did not fetch.
 */

export interface SiteRoute {
  status?: number;
  contentType?: string;
  body?: string | Uint8Array;
  /** Redirect target (absolute or relative); status defaults to 302. */
  location?: string;
  /** Sent as ETag; a request whose If-None-Match names it gets 304 Not Modified. */
  etag?: string;
  /** Sent as Last-Modified; a request whose If-Modified-Since repeats it gets 304. */
  lastModified?: string;
}

export interface LocalSite {
  url: string;
  port: number;
  /** Requests per path (with query), including 404s. */
  hits: Map<string, number>;
  delayMs: number;
  /** The routes served now: tests change the site between two crawls through it. */
  routes: Routes;
  /** Paths answered 304 Not Modified, in order. */
  notModified: string[];
  hitsOf(path: string): number;
  close(): Promise<void>;
}

export type Routes = Record<string, SiteRoute>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `routes` may be a function of the site's own base URL (for absolute links). */
export function startLocalSite(
  routes: Routes | ((baseUrl: string) => Routes),
  opts: { delayMs?: number } = {},
): LocalSite {
  const ac = new AbortController();
  const hits = new Map<string, number>();
  const site = {
    hits,
    delayMs: opts.delayMs ?? 0,
  } as LocalSite;
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: ac.signal, onListen: () => {} },
    async (req) => {
      const u = new URL(req.url);
      const path = u.pathname + u.search;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      if (site.delayMs) await sleep(site.delayMs);
      const route = site.routes[path] ?? site.routes[u.pathname];
      if (!route) return new Response("not found", { status: 404 });
      const unchanged = route.etag
        ? req.headers.get("if-none-match") === route.etag
        : route.lastModified !== undefined &&
          req.headers.get("if-modified-since") === route.lastModified;
      if (unchanged) {
        site.notModified.push(path);
        return new Response(null, { status: 304 });
      }
      if (route.location) {
        return new Response(null, {
          status: route.status ?? 302,
          headers: { location: route.location },
        });
      }
      return new Response(route.body as BodyInit ?? "", {
        status: route.status ?? 200,
        headers: {
          "content-type": route.contentType ?? "text/html; charset=utf-8",
          ...(route.etag ? { etag: route.etag } : {}),
          ...(route.lastModified ? { "last-modified": route.lastModified } : {}),
        },
      });
    },
  );
  site.port = (server.addr as Deno.NetAddr).port;
  site.url = `http://127.0.0.1:${site.port}`;
  site.routes = typeof routes === "function" ? routes(site.url) : routes;
  site.notModified = [];
  site.hitsOf = (path) => hits.get(path) ?? 0;
  site.close = async () => {
    ac.abort();
    await server.finished.catch(() => {});
  };
  return site;
}

/** An HTML page with a title, paragraphs and links. */
export function page(title: string, paragraphs: string[], links: string[] = []): SiteRoute {
  const body = `<!doctype html><html><head><title>${title}</title></head><body>
<nav><a href="/">Home</a></nav>
<main><h1>${title}</h1>${paragraphs.map((p) => `<p>${p}</p>`).join("\n")}
<ul>${links.map((l) => `<li><a href="${l}">${l}</a></li>`).join("")}</ul></main>
<footer>Footer text that is not indexed</footer><script>var tracking = "not indexed";</script>
</body></html>`;
  return { body };
}

const WORDS = ("shipping returns invoice account billing password widget support order refund " +
  "delivery warranty subscription upgrade install configure integration privacy security export")
  .split(" ");

/**
 * A generated site of `count` pages: each links to the next few pages and a
 * few random ones (so depth stays small), all listed in sitemap.xml.
 */
export function generatedSite(count: number, paragraphsPerPage = 6): (base: string) => Routes {
  return (base) => generate(base, count, paragraphsPerPage);
}

function generate(base: string, count: number, paragraphsPerPage: number): Routes {
  const routes: Routes = {};
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const path = (i: number) => (i === 0 ? "/" : `/p/${i}`);
  for (let i = 0; i < count; i++) {
    const paragraphs = Array.from(
      { length: paragraphsPerPage },
      (_, k) =>
        Array.from({ length: 60 }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" ") +
        ` (page ${i}, paragraph ${k}).`,
    );
    const links = [1, 2, 3].map((d) => (i + d) % count).concat(
      Array.from({ length: 3 }, () => Math.floor(rand() * count)),
    ).map(path);
    routes[path(i)] = page(`Page ${i}`, paragraphs, links);
  }
  routes["/robots.txt"] = { contentType: "text/plain", body: "User-agent: *\nAllow: /\n" };
  routes["/sitemap.xml"] = {
    contentType: "application/xml",
    body: `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${
      Array.from({ length: count }, (_, i) => `<url><loc>${base}${path(i)}</loc></url>`).join("")
    }</urlset>`,
  };
  return routes;
}
