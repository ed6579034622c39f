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
import { SCREEN_PAGE_CSP, screenPage } from "./screen/page.ts";

const ENTRY = new URL("./src/main.ts", import.meta.url);
const WORKER = new URL("./src/sw.ts", import.meta.url);
/** Styles of the parts both apps draw (the correction form), after each app's own. */
const SHARED_STYLES = new URL("./shared_parts.css", import.meta.url);
const STYLES = new URL("./inbox.css", import.meta.url);
const ASSET_CACHE = "no-cache";
const SCREEN_ENTRY = new URL("./screen/replay.ts", import.meta.url);
const SCREEN_STYLES = new URL("./screen/screen.css", import.meta.url);

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
      Promise.all([Deno.readTextFile(STYLES), Deno.readTextFile(SHARED_STYLES)])
        .then((parts) => parts.join("\n")),
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

interface ScreenAssets {
  page: StaticAsset;
  script: StaticAsset;
  styles: StaticAsset;
}

let screenAssets: Promise<ScreenAssets> | null = null;

/**
 * The screen-share viewer (/inbox/screen and its rrweb replayer), built on
 * its first request only: most inbox sessions never open it.
 */
function screenViewer(): Promise<ScreenAssets> {
  screenAssets ??= (async () => {
    const [js, css] = await Promise.all([
      bundleBrowserScript(SCREEN_ENTRY, "the screen viewer"),
      Deno.readTextFile(SCREEN_STYLES),
    ]);
    const script = await makeAsset(js, "text/javascript; charset=utf-8", ASSET_CACHE);
    const styles = await makeAsset(css, "text/css; charset=utf-8", ASSET_CACHE);
    const version = (script.etag + styles.etag).replace(/"/g, "").slice(0, 16);
    const page = await makeAsset(screenPage(version), "text/html; charset=utf-8", "no-cache", {
      "content-security-policy": SCREEN_PAGE_CSP,
      "referrer-policy": "no-referrer",
      "x-frame-options": "SAMEORIGIN",
    });
    return { page, script, styles };
  })().catch((err) => {
    screenAssets = null;
    throw err;
  });
  return screenAssets;
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
        // The one frame it holds is its own screen-share viewer (/inbox/screen).
        "content-security-policy": await pageCsp(html, socketUrl ? [socketUrl] : [], ["'self'"]),
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
  {
    method: "GET",
    pattern: ["inbox", "screen"],
    template: "/inbox/screen",
    offline: true,
    handle: async (req) => serveAsset(req, (await screenViewer()).page),
  },
  {
    method: "GET",
    pattern: ["inbox", "screen.js"],
    template: "/inbox/screen.js",
    offline: true,
    handle: async (req) => serveAsset(req, (await screenViewer()).script),
  },
  {
    method: "GET",
    pattern: ["inbox", "screen.css"],
    template: "/inbox/screen.css",
    offline: true,
    handle: async (req) => serveAsset(req, (await screenViewer()).styles),
  },
];
