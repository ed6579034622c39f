/**
 * The agents' web inbox: `/inbox` (the page), `/inbox/app.js` (bundled from
 * `inbox/src/main.ts` by Deno on first request, like widget.js),
 * `/inbox/app.css` and `/inbox/sw.js` (the service worker showing push alerts). All three are kept in memory with an ETag and gzip; the
 * page names the assets by content hash so a new build is fetched at once.
 */
import type { RawRoute } from "../routers/raw_routes.ts";
import type { Config as AppConfig } from "../app/config.ts";
import { makeAsset, serveAsset, type StaticAsset } from "../routers/doors/static_files.ts";
import { bundleBrowserScript } from "../widget/bundle.ts";
import { pageCsp } from "../routers/doors/page_csp.ts";
import { inboxPage } from "./page.ts";

const ENTRY = new URL("./src/main.ts", import.meta.url);
const WORKER = new URL("./src/sw.ts", import.meta.url);
const STYLES = new URL("./inbox.css", import.meta.url);
const ASSET_CACHE = "no-cache";

interface InboxAssets {
  script: StaticAsset;
  styles: StaticAsset;
  worker: StaticAsset;
}

let assets: Promise<InboxAssets> | null = null;
const pages = new Map<string, Promise<StaticAsset>>();

/** The bundled script and the stylesheet; a failed build is not cached. */
export function inboxAssets(): Promise<InboxAssets> {
  assets ??= (async () => {
    const [js, css, sw] = await Promise.all([
      bundleBrowserScript(ENTRY, "the inbox script"),
      Deno.readTextFile(STYLES),
      bundleBrowserScript(WORKER, "the inbox service worker"),
    ]);
    return {
      script: await makeAsset(js, "text/javascript; charset=utf-8", ASSET_CACHE),
      styles: await makeAsset(css, "text/css; charset=utf-8", ASSET_CACHE),
      worker: await makeAsset(sw, "text/javascript; charset=utf-8", ASSET_CACHE),
    };
  })().catch((err) => {
    assets = null;
    throw err;
  });
  return assets;
}

function page(config: AppConfig): Promise<StaticAsset> {
  const key = config.realtimeKey;
  const socketUrl = config.realtimeUrl;
  const cacheKey = `${key} ${socketUrl}`;
  let p = pages.get(cacheKey);
  if (!p) {
    p = inboxAssets().then(async ({ script, styles }) => {
      const version = (script.etag + styles.etag).replace(/"/g, "").slice(0, 16);
      const html = inboxPage(key, version, socketUrl);
      return makeAsset(html, "text/html; charset=utf-8", "no-cache", {
        // The house policy for our pages; the inbox has nothing inline, so it is the strictest.
        "content-security-policy": await pageCsp(html, socketUrl ? [socketUrl] : []),
        "referrer-policy": "same-origin",
        "x-frame-options": "DENY",
      });
    });
    p.catch(() => pages.delete(cacheKey));
    pages.set(cacheKey, p);
  }
  return p;
}

export const inboxAssetRoutes: RawRoute[] = [
  {
    method: "GET",
    pattern: ["inbox"],
    template: "/inbox",
    offline: true,
    handle: async (req, _params, deps) => serveAsset(req, await page(deps.config)),
  },
  {
    method: "GET",
    pattern: ["inbox", "app.js"],
    template: "/inbox/app.js",
    offline: true,
    handle: async (req) => serveAsset(req, (await inboxAssets()).script),
  },
  {
    method: "GET",
    pattern: ["inbox", "app.css"],
    template: "/inbox/app.css",
    offline: true,
    handle: async (req) => serveAsset(req, (await inboxAssets()).styles),
  },
  {
    method: "GET",
    pattern: ["inbox", "sw.js"],
    template: "/inbox/sw.js",
    offline: true,
    handle: async (req) => serveAsset(req, (await inboxAssets()).worker),
  },
];
