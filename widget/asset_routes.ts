/**
 * Static widget assets: `/widget.js` (bundled on first request, then served
 * from memory with an ETag and gzip) and the `/demo` page.
 */
import type { RawRoute } from "../routers/raw_routes.ts";
import { makeAsset, serveAsset, type StaticAsset } from "../routers/doors/static_files.ts";
import { bundleScreenRecorder, bundleWidget } from "./bundle.ts";
import { demoCsp, demoKey, demoPage } from "./demo_page.ts";

/**
 * Customers' pages reference an unversioned URL, so browsers keep it five
 * minutes and then revalidate with the ETag (a 304 costs no body); a day of
 * stale-while-revalidate keeps pages fast while the check runs.
 */
const SCRIPT_CACHE = "public, max-age=300, stale-while-revalidate=86400";

let script: Promise<StaticAsset> | null = null;
let recorder: Promise<StaticAsset> | null = null;

function scriptAsset(text: string): Promise<StaticAsset> {
  return makeAsset(text, "text/javascript; charset=utf-8", SCRIPT_CACHE, {
    "access-control-allow-origin": "*",
    "cross-origin-resource-policy": "cross-origin",
    // Opened directly, the script is inert: it may load and run nothing.
    "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
  });
}

/** The bundled script; a failed build is not cached, so the next request retries. */
export function widgetScript(): Promise<StaticAsset> {
  script ??= bundleWidget().then(scriptAsset).catch((err) => {
    script = null;
    throw err;
  });
  return script;
}

/**
 * widget-screen.js, the screen-share recorder (rrweb): a separate asset that
 * widget.js adds to the page only after the visitor consents, so the widget
 * stays within its 25 KB budget.
 */
export function screenRecorderScript(): Promise<StaticAsset> {
  recorder ??= bundleScreenRecorder().then(scriptAsset).catch((err) => {
    recorder = null;
    throw err;
  });
  return recorder;
}

const demoPages = new Map<string, Promise<StaticAsset>>();

function demoAsset(baseUrl: string, socketUrl: string, key: string): Promise<StaticAsset> {
  const cacheKey = `${key} ${baseUrl} ${socketUrl}`;
  let page = demoPages.get(cacheKey);
  if (!page) {
    if (demoPages.size > 100) demoPages.clear();
    page = demoCsp(baseUrl, socketUrl).then((csp) =>
      makeAsset(demoPage(baseUrl, key), "text/html; charset=utf-8", "no-cache", {
        "content-security-policy": csp,
        "referrer-policy": "strict-origin-when-cross-origin",
      })
    );
    demoPages.set(cacheKey, page);
  }
  return page;
}

export const widgetAssetRoutes: RawRoute[] = [
  {
    method: "GET",
    pattern: ["widget.js"],
    template: "/widget.js",
    offline: true,
    handle: async (req) => serveAsset(req, await widgetScript()),
  },
  {
    method: "GET",
    pattern: ["widget-screen.js"],
    template: "/widget-screen.js",
    offline: true,
    handle: async (req) => serveAsset(req, await screenRecorderScript()),
  },
  {
    method: "GET",
    pattern: ["demo"],
    template: "/demo",
    offline: true,
    handle: async (req, _params, deps) =>
      serveAsset(
        req,
        await demoAsset(deps.config.baseUrl, deps.config.realtimeUrl!, demoKey(new URL(req.url))),
      ),
  },
];
