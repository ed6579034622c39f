/**
 * GET /api/docs: the API reference, drawn by Swagger UI a surface at a time
 * (`?surface=portal`, from /api/openapi/portal.json; Integration v1 by
 * default), with a link per surface and one to the whole /api/openapi.json.
 * A surface at a time because Swagger UI, given all 170-odd operations, took
 * over 20 s to draw the first one on CI's two loaded cores. Swagger UI (swagger-ui-dist on npm, maintained by
 * SmartBear) was chosen over Redoc and Scalar because it ships as plain
 * static files (one script, one stylesheet) that we serve from this process,
 * injects no <style> elements at run time, and has "Try it out" with bearer
 * authorization per scheme. So the page works offline, needs no CDN, and
 * runs under a strict Content-Security-Policy: the HTML holds no inline
 * script or style; everything is a same-origin file under /api/docs/.
 *
 * What the page needs from a CSP: script-src 'self'; style-src 'self';
 * img-src 'self' data: (Swagger UI's icons are data: URIs); connect-src 'self'
 * (the document, and "Try it out" calls).
 */
import swaggerUiDir from "swagger-ui-dist/absolute-path.js";
import { makeAsset, serveAsset, type StaticAsset } from "./static_files.ts";
import { SURFACES } from "../openapi/components.ts";

const SURFACE_LINKS = SURFACES.map((s) =>
  `<a href="/api/docs?surface=${s.slug}" data-surface="${s.slug}">${s.tag}</a>`
).join("\n");

/** The reference page: no inline script or style, so a strict CSP fits it. */
export const API_DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>Parley API reference</title>
<link rel="stylesheet" href="/api/docs/swagger-ui.css">
<link rel="stylesheet" href="/api/docs/docs.css">
</head>
<body>
<header class="parley-bar"><strong>Parley API reference</strong>
<nav aria-label="Surfaces">
${SURFACE_LINKS}
</nav>
<a href="/api/openapi.json">openapi.json (all)</a></header>
<div id="swagger-ui"><noscript>The reference needs JavaScript; the raw document is at
<a href="/api/openapi.json">/api/openapi.json</a>.</noscript></div>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script>
</body>
</html>
`;

/**
 * Our start-up script: the chosen surface's document (an unknown one falls
 * back to the first), list layout, filter, no remote validator badge.
 */
const INIT = `"use strict";
var surfaces = ${JSON.stringify(SURFACES.map((s) => s.slug))};
var asked = new URLSearchParams(location.search).get("surface");
var surface = surfaces.indexOf(asked) >= 0 ? asked : surfaces[0];
var current = document.querySelector('nav a[data-surface="' + surface + '"]');
if (current) current.setAttribute("aria-current", "page");
window.ui = SwaggerUIBundle({
  url: "/api/openapi/" + surface + ".json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  docExpansion: "list",
  filter: true,
  displayRequestDuration: true,
  defaultModelsExpandDepth: -1,
  tryItOutEnabled: false,
  persistAuthorization: false,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
`;

const CSS = `body{margin:0;background:#fafafa}
.parley-bar{display:flex;gap:16px;align-items:baseline;padding:14px 24px;background:#111827;
color:#fff;font:15px/1.4 system-ui,sans-serif}
.parley-bar a{color:#93c5fd}
.parley-bar nav{display:flex;flex-wrap:wrap;gap:12px;flex:1}
.parley-bar nav a[aria-current=page]{color:#fff;font-weight:600;text-decoration:none}
.swagger-ui .information-container{padding-top:8px}
`;

/** Files under /api/docs/: ours, and two from the swagger-ui-dist package. */
const FILES: Record<string, { type: string; load: () => Promise<string> }> = {
  "init.js": { type: "text/javascript; charset=utf-8", load: () => Promise.resolve(INIT) },
  "docs.css": { type: "text/css; charset=utf-8", load: () => Promise.resolve(CSS) },
  "swagger-ui-bundle.js": {
    type: "text/javascript; charset=utf-8",
    load: () => Deno.readTextFile(`${swaggerUiDir()}/swagger-ui-bundle.js`),
  },
  "swagger-ui.css": {
    type: "text/css; charset=utf-8",
    load: () => Deno.readTextFile(`${swaggerUiDir()}/swagger-ui.css`),
  },
};

/** Revalidated after an hour; the ETag makes that a bodiless 304 until the server changes. */
const CACHE = "public, max-age=3600";

const assets = new Map<string, Promise<StaticAsset>>();

function asset(name: string): Promise<StaticAsset> | null {
  const file = FILES[name];
  if (!file) return null;
  let found = assets.get(name);
  if (!found) {
    found = file.load().then((text) => makeAsset(text, file.type, CACHE));
    // A failed read is not kept: the next request tries again.
    found.catch(() => assets.delete(name));
    assets.set(name, found);
  }
  return found;
}

/** The answer for GET/HEAD of /api/docs or /api/docs/<file>, or null when no such file. */
export async function apiDocsResponse(req: Request, path: string): Promise<Response | null> {
  if (path === "/api/docs" || path === "/api/docs/") {
    const page = assets.get("") ?? makeAsset(API_DOCS_HTML, "text/html; charset=utf-8", "no-cache");
    assets.set("", page);
    return serveAsset(req, await page);
  }
  const found = asset(path.slice("/api/docs/".length));
  return found ? serveAsset(req, await found) : null;
}
