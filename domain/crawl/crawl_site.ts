/**
 * Breadth-first crawl of one website for a url knowledge source: the start
 * page, same-site links and sitemap entries, within a page and depth budget,
 * honouring robots.txt, every fetch through the address guard. HTML pages
 * and the PDFs linked from them are read (a PDF within an uploaded file's
 * limits: 20 MiB, 500 pages). Pages are
 * handed to `onPage` as they arrive; the caller stores and indexes them.
 */
import { AddressRefused, assertAddressAllowed } from "./address_policy.ts";
import { extractPage } from "./extract_page.ts";
import { ALLOW_ALL, parseRobots, type RobotsRules } from "./robots.ts";
import {
  type FetchLimits,
  isHtml,
  isPdf,
  safeFetch,
  USER_AGENT,
  type Validators,
} from "./safe_fetch.ts";
import { extractPdf } from "../knowledge/files/extract_pdf.ts";
import { UnreadableFile } from "../knowledge/files/unreadable_file.ts";
import { parseSitemap } from "./sitemap.ts";
import { sha256Hex } from "../auth/secrets.ts";

export interface CrawlOptions extends FetchLimits {
  maxPages: number;
  maxDepth: number;
  /** Parallel fetches within this crawl. */
  concurrency: number;
  /**
   * A page indexed by an earlier crawl of this source (a sync): fetched
   * conditionally, and on 304 its stored links lead the crawl on.
   */
  known?: (url: string) => KnownPage | undefined;
}

/** What an earlier crawl kept of a page. */
export interface KnownPage extends Validators {
  links: string[];
  contentHash: string;
}

export interface CrawledPage {
  url: string;
  title: string;
  text: string;
  depth: number;
  validators: Validators;
  /** Its links (none when nofollow), kept so a later 304 can still lead on. */
  links: string[];
}

export interface CrawlHooks {
  /** Number of distinct in-scope URLs accepted so far (the "pages found"). */
  onFound(count: number): void;
  onPage(page: CrawledPage): Promise<void>;
  /** A known page its server answered 304 Not Modified for: kept as it is. */
  onUnchanged?(url: string): Promise<void>;
  /**
   * A found page that will not be indexed: `failed` when it could not be
   * fetched or used (network error, HTTP error, not a page, too large, a
   * refused redirect); otherwise skipped on purpose (noindex, no new text, a
   * duplicate).
   */
  onSkipped?(skip: { url: string; reason: string; failed: boolean; status?: number }): void;
}

export interface CrawlSummary {
  found: number;
  indexed: number;
  skipped: { url: string; reason: string }[];
}

/** The crawl cannot start (refused address, robots rule, start page unusable): not retried. */
export class CrawlRefused extends Error {}

const MAX_SITEMAPS = 5;

/** Same site: same host and port, `www.` ignored, http or https. */
function siteKey(url: URL): string {
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const normalPort = port === "80" || port === "443" ? "" : `:${port}`;
  return url.hostname.toLowerCase().replace(/^www\./, "") + normalPort;
}

export function normalizeUrl(raw: string, base?: string): string | null {
  try {
    const u = new URL(raw, base);
    if (u.protocol !== "http:" && u.protocol !== "https:") return null;
    u.hash = "";
    return u.href;
  } catch {
    return null;
  }
}

export async function crawlSite(
  startUrl: string,
  opts: CrawlOptions,
  hooks: CrawlHooks,
): Promise<CrawlSummary> {
  const start = new URL(normalizeUrl(startUrl) ?? startUrl);
  const sites = new Set([siteKey(start)]);
  const summary: CrawlSummary = { found: 0, indexed: 0, skipped: [] };
  const robotsBySite = new Map<string, Promise<LoadedRobots>>();
  const robotsFor = (u: URL) => {
    const key = `${u.protocol}//${u.host}`;
    let r = robotsBySite.get(key);
    if (!r) robotsBySite.set(key, r = loadRobots(key, opts));
    return r;
  };

  const skip = (url: string, reason: string, failed: boolean, status?: number) => {
    summary.skipped.push({ url, reason });
    hooks.onSkipped?.({ url, reason, failed, status });
  };
  const seen = new Set<string>();
  const hashes = new Set<string>();
  const queue: { url: string; depth: number }[] = [];
  const accept = async (raw: string, depth: number) => {
    if (seen.size >= opts.maxPages) return;
    const url = normalizeUrl(raw);
    if (!url || seen.has(url)) return;
    const u = new URL(url);
    if (!sites.has(siteKey(u))) return;
    if (!(await robotsFor(u)).isAllowed(u.pathname + u.search)) return;
    if (seen.has(url) || seen.size >= opts.maxPages) return;
    seen.add(url);
    queue.push({ url, depth });
    hooks.onFound(seen.size);
  };

  try {
    await assertAddressAllowed(start, opts.policy, opts.resolve);
  } catch (err) {
    throw err instanceof AddressRefused ? new CrawlRefused(err.message) : err;
  }
  const startRules = await robotsFor(start);
  if (startRules.unavailable) {
    // Retried later (not a refusal): the site may be briefly down.
    throw new Error(`${start.origin}/robots.txt answered HTTP ${startRules.unavailable}.`);
  }
  if (!startRules.isAllowed(start.pathname + start.search)) {
    throw new CrawlRefused(`robots.txt does not allow crawling ${start.href}.`);
  }
  await accept(start.href, 0);
  let first = true;

  const visit = async (item: { url: string; depth: number }) => {
    const wasStart = first;
    // Redirects stay on the site (the start page may move, e.g. to www.) and within robots.txt.
    const permitRedirect = async (target: URL) => {
      if (!wasStart && !sites.has(siteKey(target))) return "redirected off the site";
      // A refused address must surface as such, not as robots.txt failing to load.
      await assertAddressAllowed(target, opts.policy, opts.resolve);
      const rules = await robotsFor(target);
      return rules.isAllowed(target.pathname + target.search) ? null : "disallowed by robots.txt";
    };
    let outcome;
    try {
      outcome = await safeFetch(
        item.url,
        { ...opts, permitRedirect, validatorsFor: opts.known },
        (type) => isHtml(type) || isPdf(type),
      );
    } catch (err) {
      if (first) throw err instanceof AddressRefused ? new CrawlRefused(err.message) : err;
      if (opts.signal?.aborted) throw err;
      skip(item.url, err instanceof AddressRefused ? err.message : "could not be fetched", true);
      return;
    }
    const wasFirst = first;
    first = false;
    if (outcome.kind === "skipped") {
      if (wasFirst) {
        const message = `The start page ${item.url} could not be used: ${outcome.reason}.`;
        // A busy or failing server may recover: retried. Anything else will not change.
        const transient = outcome.status !== undefined &&
          (outcome.status >= 500 || outcome.status === 429 || outcome.status === 408);
        throw transient ? new Error(message) : new CrawlRefused(message);
      }
      skip(outcome.url, outcome.reason, true, outcome.status);
      return;
    }
    const finalUrl = new URL(outcome.url);
    if (wasFirst) {
      sites.add(siteKey(finalUrl)); // example.com redirecting to www.example.com
      await loadSitemaps(start, finalUrl, opts, await robotsFor(finalUrl), accept);
    } else if (!sites.has(siteKey(finalUrl))) {
      skip(item.url, "redirected off the site", true);
      return;
    }
    if (outcome.url !== item.url) {
      // A redirect onto a page already queued: keep the one visit.
      if (seen.has(outcome.url) && !wasFirst) {
        skip(item.url, "duplicate", false);
        return;
      }
      seen.add(outcome.url);
    }
    if (outcome.kind === "not_modified") {
      // Unchanged since the last crawl: its stored links stand in for its body.
      const known = opts.known?.(outcome.url);
      if (known && item.depth < opts.maxDepth) {
        for (const link of known.links) await accept(link, item.depth + 1);
      }
      if (known) hashes.add(known.contentHash);
      await hooks.onUnchanged?.(outcome.url);
      summary.indexed++;
      return;
    }
    let page;
    try {
      page = isPdf(outcome.contentType)
        ? await pdfPage(outcome.bytes, finalUrl)
        : extractPage(outcome.body, outcome.url);
    } catch (err) {
      if (!(err instanceof UnreadableFile)) throw err;
      if (wasFirst) {
        throw new CrawlRefused(`The start page ${item.url} could not be used: ${err.message}`);
      }
      skip(outcome.url, err.message, true);
      return;
    }
    if (!page.nofollow && item.depth < opts.maxDepth) {
      for (const link of page.links) await accept(link, item.depth + 1);
    }
    const digest = await sha256Hex(page.text);
    if (page.noindex || page.text === "" || hashes.has(digest)) {
      skip(outcome.url, page.noindex ? "noindex" : "no new text", false);
      return;
    }
    hashes.add(digest);
    await hooks.onPage({
      url: outcome.url,
      title: page.title || finalUrl.pathname,
      text: page.text,
      depth: item.depth,
      validators: outcome.validators,
      links: page.nofollow ? [] : page.links,
    });
    summary.indexed++;
  };

  // The start page alone first: it decides the site and brings the sitemap.
  await visit(queue.shift()!);
  let active = 0;
  let failure: unknown = null;
  await new Promise<void>((resolve) => {
    const pump = () => {
      if (failure || opts.signal?.aborted) {
        if (active === 0) resolve();
        return;
      }
      while (active < opts.concurrency && queue.length > 0) {
        const item = queue.shift()!;
        active++;
        visit(item).catch((err) => failure ??= err).finally(() => {
          active--;
          pump();
        });
      }
      if (active === 0 && queue.length === 0) resolve();
    };
    pump();
  });
  if (failure) throw failure;
  opts.signal?.throwIfAborted();
  summary.found = seen.size;
  return summary;
}

/**
 * A PDF found on the site, read as an uploaded one is (headings kept, the
 * same page limit; encrypted or image-only PDFs refused with the reason) and
 * titled by its file name. It has no links to follow.
 */
async function pdfPage(bytes: Uint8Array, url: URL) {
  const read = await extractPdf(bytes);
  const last = url.pathname.split("/").pop() || "";
  let name = last;
  try {
    name = decodeURIComponent(last);
  } catch {
    // A malformed escape: the name as it stands.
  }
  return {
    title: (name || url.pathname).slice(0, 200),
    text: read.kind === "text" ? read.text : "",
    links: [] as string[],
    noindex: false,
    nofollow: true,
  };
}

/** Rules, marked `unavailable` (with the status) when robots.txt answered a server error. */
type LoadedRobots = RobotsRules & { unavailable?: number };

async function loadRobots(origin: string, opts: FetchLimits): Promise<LoadedRobots> {
  try {
    const res = await safeFetch(`${origin}/robots.txt`, { ...opts, maxBytes: 512_000 }, () => true);
    if (res.kind === "ok") return parseRobots(res.body, USER_AGENT);
    // RFC 9309: a server error means "assume complete disallow" for now; 4xx means no rules.
    if (res.kind === "skipped" && res.status && res.status >= 500) {
      return { isAllowed: () => false, sitemaps: [], unavailable: res.status };
    }
    return ALLOW_ALL;
  } catch (err) {
    // A refused robots.txt means a refused origin: nothing there may be fetched.
    if (err instanceof AddressRefused) return { isAllowed: () => false, sitemaps: [] };
    return ALLOW_ALL;
  }
}

async function loadSitemaps(
  start: URL,
  final: URL,
  opts: FetchLimits,
  robots: RobotsRules,
  accept: (url: string, depth: number) => Promise<void>,
): Promise<void> {
  const pending = robots.sitemaps.length
    ? [...robots.sitemaps]
    : [`${final.protocol}//${final.host}/sitemap.xml`];
  const sameSite = (u: string) => {
    const n = normalizeUrl(u);
    return n !== null && (siteKey(new URL(n)) === siteKey(start) ||
      siteKey(new URL(n)) === siteKey(final));
  };
  let fetched = 0;
  while (pending.length && fetched < MAX_SITEMAPS) {
    const next = pending.shift()!;
    if (!sameSite(next)) continue;
    fetched++;
    try {
      const res = await safeFetch(next, { ...opts, maxBytes: 5_000_000 }, () => true);
      if (res.kind !== "ok") continue;
      const entries = parseSitemap(res.body);
      pending.push(...entries.sitemaps);
      for (const page of entries.pages) await accept(page, 1);
    } catch {
      // A broken sitemap only costs its URLs; links still lead to the pages.
    }
  }
}
