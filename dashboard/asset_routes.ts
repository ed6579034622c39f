/**
 * The owners' dashboard: `/dashboard` (the page), `/dashboard/app.js`
 * (bundled from `dashboard/src/main.ts` by Deno on first request, like the
 * inbox) and `/dashboard/app.css`, kept in memory with an ETag and gzip; the
 * page names the assets by content hash so a new build is fetched at once.
 */
import type { RawRoute } from "../routers/raw_routes.ts";
import type { Config as AppConfig } from "../app/config.ts";
import { makeAsset, serveAsset, type StaticAsset } from "../routers/doors/static_files.ts";
import { bundleBrowserScript } from "../widget/bundle.ts";
import { pageCsp } from "../routers/doors/page_csp.ts";
import { dashboardPage } from "./page.ts";
import { previewPage } from "./preview/preview_page.ts";

const ENTRY = new URL("./src/main.ts", import.meta.url);
/** Styles of the parts both apps draw (the correction form), after each app's own. */
const SHARED_STYLES = new URL("../inbox/shared_parts.css", import.meta.url);
const STYLES = new URL("./dashboard.css", import.meta.url);
const PREVIEW_ENTRY = new URL("./preview/preview.ts", import.meta.url);

interface DashboardAssets {
  script: StaticAsset;
  styles: StaticAsset;
}

let assets: Promise<DashboardAssets> | null = null;
const pages = new Map<string, Promise<StaticAsset>>();

/** The bundled script and the stylesheet; a failed build is not cached. */
export function dashboardAssets(): Promise<DashboardAssets> {
  assets ??= (async () => {
    const [js, css] = await Promise.all([
      bundleBrowserScript(ENTRY, "the dashboard script"),
      Promise.all([Deno.readTextFile(STYLES), Deno.readTextFile(SHARED_STYLES)])
        .then((parts) => parts.join("\n")),
    ]);
    return {
      script: await makeAsset(js, "text/javascript; charset=utf-8", "no-cache"),
      styles: await makeAsset(css, "text/css; charset=utf-8", "no-cache"),
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
    p = dashboardAssets().then(async ({ script, styles }) => {
      const version = (script.etag + styles.etag).replace(/"/g, "").slice(0, 16);
      const html = dashboardPage(key, version, socketUrl);
      // The house policy (with the socket server, which has a port of its own), plus two
      // additions: a white-label logo may live on the workspace's own https site, and the
      // branding preview frames our own /dashboard/preview page (which runs the real widget.js).
      const csp = (await pageCsp(html, socketUrl ? [socketUrl] : []))
        .replace("img-src 'self' data:", "img-src 'self' data: https:")
        .replace("default-src 'none'", "default-src 'none'; frame-src 'self'");
      return makeAsset(html, "text/html; charset=utf-8", "no-cache", {
        "content-security-policy": csp,
        "referrer-policy": "same-origin",
        "x-frame-options": "DENY",
      });
    });
    p.catch(() => pages.delete(cacheKey));
    pages.set(cacheKey, p);
  }
  return p;
}

let previewScript: Promise<StaticAsset> | null = null;
/** Per base URL and socket server: the page's policy names both (tests run several servers). */
const previewPages = new Map<string, Promise<StaticAsset>>();

/** The branding preview's script, bundled once; a failed build is not cached. */
function previewScriptAsset(): Promise<StaticAsset> {
  previewScript ??= (async () =>
    makeAsset(
      await bundleBrowserScript(PREVIEW_ENTRY, "the branding preview script"),
      "text/javascript; charset=utf-8",
      "no-cache",
    ))().catch((err) => {
      previewScript = null;
      throw err;
    });
  return previewScript;
}

/**
 * The branding preview's page. It may be framed by the dashboard only; the
 * widget it runs talks to this server and its socket server.
 */
function previewPageAsset(config: AppConfig): Promise<StaticAsset> {
  const cacheKey = `${config.baseUrl} ${config.realtimeUrl}`;
  let p = previewPages.get(cacheKey);
  if (!p) {
    p = previewScriptAsset().then(async (script) => {
      const html = previewPage(script.etag.replace(/"/g, "").slice(0, 16));
      const base = new URL(config.baseUrl);
      // The widget's socket server listens on a port of its own (REALTIME_URL).
      const socket = config.realtimeUrl ??
        `${base.protocol === "https:" ? "wss:" : "ws:"}//${base.host}`;
      const csp = (await pageCsp(html))
        .replace("default-src 'none'", "default-src 'self'")
        .replace("img-src 'self' data:", "img-src 'self' data: https:")
        .replace("connect-src 'self'", `connect-src 'self' ${base.origin} ${socket}`)
        .replace("frame-ancestors 'none'", "frame-ancestors 'self'");
      return makeAsset(html, "text/html; charset=utf-8", "no-cache", {
        "content-security-policy": csp,
        "referrer-policy": "same-origin",
        "x-frame-options": "SAMEORIGIN",
      });
    });
    p.catch(() => previewPages.delete(cacheKey));
    previewPages.set(cacheKey, p);
  }
  return p;
}

export const dashboardAssetRoutes: RawRoute[] = [
  {
    method: "GET",
    pattern: ["dashboard", "preview"],
    template: "/dashboard/preview",
    offline: true,
    handle: async (req, _params, deps) => serveAsset(req, await previewPageAsset(deps.config)),
  },
  {
    method: "GET",
    pattern: ["dashboard", "preview.js"],
    template: "/dashboard/preview.js",
    offline: true,
    handle: async (req) => serveAsset(req, await previewScriptAsset()),
  },
  {
    method: "GET",
    pattern: ["dashboard"],
    template: "/dashboard",
    offline: true,
    handle: async (req, _params, deps) => serveAsset(req, await page(deps.config)),
  },
  {
    method: "GET",
    pattern: ["dashboard", "app.js"],
    template: "/dashboard/app.js",
    offline: true,
    handle: async (req) => serveAsset(req, (await dashboardAssets()).script),
  },
  {
    method: "GET",
    pattern: ["dashboard", "app.css"],
    template: "/dashboard/app.css",
    offline: true,
    handle: async (req) => serveAsset(req, (await dashboardAssets()).styles),
  },
];
